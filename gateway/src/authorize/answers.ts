import type { FastifyReply, FastifyRequest } from "fastify";
import type { KeyCheck } from "../http/key-check.js";
import { gatewayCodes, retryableGatewayCodes } from "@countersign/protocol/errors";
import type { AuthorizeRefusal, AuthorizeRefusalCode, RateLimitedAnswer } from "@countersign/protocol/wire";

/**
 * Answers of POST /v1/authorize that are not decisions of the pipeline: the
 * HTTP-level refusals (docs/gateway.md lists each). Every body has `allowed`
 * false, so a caller that only reads `allowed` stays safe. Shapes: the Gateway's wire
 * (protocol/src/wire/gateway/authorize.ts), which the OpenAPI document is generated from.
 */
export function refuse(
  reply: FastifyReply,
  http: number,
  code: AuthorizeRefusalCode,
  detail: string,
): FastifyReply {
  const status = gatewayCodes[code];
  const body: AuthorizeRefusal = { allowed: false, status, code, detail };
  if (retryableGatewayCodes.has(code)) body.retryable = true;
  if (status === "unavailable") reply.header("retry-after", "5");
  return reply.code(http).send(body);
}

/**
 * An internal failure of POST /v1/authorize. SPEC 4.1 gives this endpoint 200, 400, 401 and 503
 * "when the Gateway cannot decide now": a failure inside the Gateway is that, never a 500 and never
 * `upstream_error` (a decision-only call has no upstream). The decision is recorded in one
 * transaction, so a failure before its commit recorded nothing; the detail says to retry with the
 * same idempotency key, which returns the recorded decision if the failure came after it.
 */
export function refuseInternal(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return refuse(
    reply,
    503,
    "INTERNAL_ERROR",
    `the Gateway failed while deciding (request id ${request.id}); retry the same call with the same idempotency key`,
  );
}

export function refuseUnauthorized(reply: FastifyReply): FastifyReply {
  // One answer for missing, malformed, unknown, revoked, expired, wrong-kind
  // keys, disabled agents and creators no longer allowed (SPEC 5.4, 7.3).
  return refuse(reply, 401, "UNAUTHORIZED", "no valid gateway key");
}

export function refuseRateLimited(reply: FastifyReply, waitSeconds: number): FastifyReply {
  const seconds = Math.max(1, Math.ceil(waitSeconds));
  const body: RateLimitedAnswer = {
    allowed: false,
    status: "unavailable",
    code: "RATE_LIMITED",
    retryable: true,
    detail: `too many requests for this key; retry in ${seconds} s`,
    retry_after_seconds: seconds,
  };
  return (
    reply
      .code(429)
      .header("retry-after", String(seconds))
      // RATE_LIMITED is the HTTP-level answer of a key over its budget, not a decision; its status is
      // the one every "retry later" answer of this endpoint carries, as /mcp's error data says.
      .send(body)
  );
}

/** The answer to a gateway key that failed its check (SPEC 7.3): 503, 429 or 401. */
export function refuseKeyCheck(reply: FastifyReply, access: Exclude<KeyCheck, { ok: true }>): FastifyReply {
  if (access.refusal === "unavailable")
    return refuse(reply, 503, "DATABASE_UNAVAILABLE", "cannot check the key now; retry");
  if (access.refusal === "rate_limited") return refuseRateLimited(reply, access.waitSeconds);
  return refuseUnauthorized(reply);
}
