import type { FastifyReply, FastifyRequest } from "fastify";
import { jsonRpcErrors, type GatewayCode } from "@countersign/protocol/errors";
import type { AuthorizeRefusal, RpcErrorData } from "@countersign/protocol/wire";

export const unavailableDetails = {
  GATEWAY_SHUTTING_DOWN:
    "this Gateway replica is shutting down; retry the same call (with the same idempotency key)",
  DATABASE_UNAVAILABLE:
    "the Gateway cannot reach its database; retry the same call (with the same idempotency key)",
} as const satisfies Partial<Record<GatewayCode, string>>;

/** The JSON-RPC error of an unavailable Gateway (HTTP 503 on /mcp, or inside an answer already under way). */
export function unavailableRpcError(code: keyof typeof unavailableDetails) {
  const data: RpcErrorData = { service: { status: "unavailable", code, retryable: true } };
  return { code: jsonRpcErrors.RATE_LIMITED, message: unavailableDetails[code], data };
}

/**
 * The HTTP-level 503 of SPEC 7.3 (`Retry-After: 5`, nothing recorded), in the
 * shape the caller's protocol expects: a JSON-RPC error on /mcp, a decision
 * (`allowed` false, status `unavailable`, `retryable` true) on /v1/authorize.
 */
export function sendUnavailable(
  request: FastifyRequest,
  reply: FastifyReply,
  code: "GATEWAY_SHUTTING_DOWN" | "DATABASE_UNAVAILABLE",
): FastifyReply {
  const detail = unavailableDetails[code];
  reply.code(503).header("retry-after", "5");
  if (code === "GATEWAY_SHUTTING_DOWN") reply.header("connection", "close");
  if (request.url.startsWith("/mcp"))
    return reply.send({ jsonrpc: "2.0", id: null, error: unavailableRpcError(code) });
  const body: AuthorizeRefusal = { allowed: false, status: "unavailable", code, detail, retryable: true };
  return reply.send(body);
}
