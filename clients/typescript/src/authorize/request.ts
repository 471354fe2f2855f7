/**
 * The request of POST /v1/authorize checked before sending (SPEC 4.1): a
 * request the Gateway would refuse as sent is answered here the same way,
 * `invalid_request`, without a round trip and without sending the key.
 */
import type { AuthorizeRequestBody } from "@countersign/protocol/wire";
import type { Refusal } from "./result.js";

export interface AuthorizeRequest {
  tool: string;
  arguments?: Record<string, unknown>;
  idempotencyKey?: string;
  waitSeconds?: number;
}

/** The body sent: the Gateway's wire (protocol/src/wire/gateway), with `arguments` always present. */
export type WireRequest = AuthorizeRequestBody & { arguments: Record<string, unknown> };

export function checkRequest(
  req: AuthorizeRequest,
): { ok: true; body: WireRequest } | { ok: false; refusal: Refusal } {
  const { tool, idempotencyKey, waitSeconds } = req;
  const args = req.arguments ?? {};
  if (typeof tool !== "string" || tool.length < 1 || tool.length > 128)
    return refuse("INVALID_REQUEST", "tool must be a string of 1 to 128 characters");
  if (!isPlainObject(args)) return refuse("INVALID_REQUEST", "arguments must be a JSON object");
  if (
    idempotencyKey !== undefined &&
    (typeof idempotencyKey !== "string" || idempotencyKey.length < 1 || idempotencyKey.length > 200)
  ) {
    return refuse("INVALID_REQUEST", "idempotencyKey must be a string of 1 to 200 characters");
  }
  if (
    waitSeconds !== undefined &&
    (typeof waitSeconds !== "number" || !Number.isSafeInteger(waitSeconds) || waitSeconds < 0)
  ) {
    return refuse("INVALID_REQUEST", "waitSeconds must be a whole number of seconds, 0 or more");
  }
  const bad = badValue(args, "arguments");
  if (bad) return refuse("INVALID_ARGUMENTS", bad);
  const body: WireRequest = { tool, arguments: args };
  if (idempotencyKey !== undefined) body.idempotency_key = idempotencyKey;
  if (waitSeconds !== undefined) body.wait_seconds = waitSeconds;
  return { ok: true, body };
}

/** JSON values only, and whole numbers only (SPEC 4.1: send decimals as strings). Names the path, never the value. */
function badValue(v: unknown, path: string): string | null {
  if (v === null || typeof v === "string" || typeof v === "boolean") return null;
  if (typeof v === "number")
    return Number.isSafeInteger(v) ? null : `${path} is not a whole number (send decimals as strings)`;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const bad = badValue(v[i], `${path}[${i}]`);
      if (bad) return bad;
    }
    return null;
  }
  if (isPlainObject(v)) {
    for (const [k, item] of Object.entries(v)) {
      const bad = badValue(item, `${path}.${k}`);
      if (bad) return bad;
    }
    return null;
  }
  return `${path} is not a JSON value`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function refuse(
  code: "INVALID_REQUEST" | "INVALID_ARGUMENTS",
  detail: string,
): { ok: false; refusal: Refusal } {
  return {
    ok: false,
    refusal: {
      allowed: false,
      status: "invalid_request",
      code,
      detail: `${detail}; nothing was sent`,
      protectedActionId: null,
      approvalRequestId: null,
      expiresAt: null,
      taskObjectId: null,
      proposalObjectId: null,
      receiptObjectId: null,
      receiptId: null,
      retryable: false,
      policy: null,
    },
  };
}
