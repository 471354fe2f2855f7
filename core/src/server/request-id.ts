import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";

export const REQUEST_ID_HEADER = "x-request-id";

/**
 * A caller's request id is echoed only when it is "well formed" (SPEC 4.3):
 * 1 to 128 characters of letters, digits and `._:-`, starting with a letter or
 * digit. Anything else could smuggle log-injection or header-splitting input,
 * so it is replaced by a new UUID. See docs/operations.md.
 */
const WELL_FORMED = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export function isWellFormedRequestId(value: unknown): value is string {
  return typeof value === "string" && WELL_FORMED.test(value);
}

/** fastify `genReqId`: the caller's id when well formed, else a new one. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  return isWellFormedRequestId(given) ? given : randomUUID();
}
