import type { FastifyReply, FastifyRequest } from "fastify";
import { jsonRpcErrors } from "@countersign/protocol/errors";
import type { RpcErrorData } from "@countersign/protocol/wire";
import { rpcError } from "../http/edge.js";
import type { KeyCheck } from "../http/key-check.js";
import { sendUnavailable } from "../http/unavailable.js";

/** A gateway key that failed its check, as /mcp answers it (SPEC 7.3): 503, 429 -32000 with Retry-After, or 401 -32001 with WWW-Authenticate: Bearer. */
export function refuseKeyCheck(
  request: FastifyRequest,
  reply: FastifyReply,
  access: Exclude<KeyCheck, { ok: true }>,
  /** The request's id, for a 2026-07-28 request: that revision's schema has no error response with id null. */
  id: string | number | null = null,
): FastifyReply {
  if (access.refusal === "unavailable") return sendUnavailable(request, reply, "DATABASE_UNAVAILABLE");
  if (access.refusal === "rate_limited") {
    const seconds = Math.max(1, Math.ceil(access.waitSeconds));
    const data: RpcErrorData = { retry_after_seconds: seconds };
    return rpcError(
      reply.header("retry-after", String(seconds)),
      429,
      jsonRpcErrors.RATE_LIMITED,
      `too many requests for this key; retry in ${seconds} s`,
      data,
      id,
    );
  }
  // RFC 6750 3 / MCP authorization: a 401 names the scheme it wants.
  return rpcError(
    reply.header("www-authenticate", 'Bearer realm="countersign-gateway"'),
    401,
    jsonRpcErrors.UNAUTHORIZED,
    "no valid gateway key",
    undefined,
    id,
  );
}
