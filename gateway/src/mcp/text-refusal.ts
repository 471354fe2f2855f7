import type { FastifyReply, FastifyRequest } from "fastify";
import { jsonRpcErrors } from "@countersign/protocol/errors";
import type { RequestTextError } from "@countersign/core/server";
import { textProblem } from "@countersign/core/text";
import type { GatewayContext } from "../context.js";
import { rpcError } from "../http/edge.js";
import { checkGatewayKey } from "../http/key-check.js";
import { refuseKeyCheck } from "./key-refusal.js";
import { refusalResult } from "./results.js";

const idOf = (v: unknown): string | number | null =>
  (typeof v === "number" && Number.isFinite(v)) || (typeof v === "string" && textProblem(v) === null)
    ? v
    : null;

/**
 * A JSON-RPC body breaking the text rule, answered after the key check
 * (a batch costs one token per message) and before the MCP server sees it.
 * In a tools/call it is the tool's refusal, as any other invalid call is
 * (INVALID_ARGUMENTS in `arguments`, INVALID_META in `_meta`, else
 * INVALID_REQUEST); in another method's params, -32602; anywhere else the
 * message is no valid request (400, -32600). Nothing is recorded.
 */
export async function refuseText(
  ctx: GatewayContext,
  err: RequestTextError,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const body = err.body;
  const access = await checkGatewayKey(ctx, request, Array.isArray(body) ? Math.max(1, body.length) : 1);
  if (!access.ok) return refuseKeyCheck(request, reply, access);
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return rpcError(reply, 400, jsonRpcErrors.INVALID_REQUEST, err.detail);
  const message = body as { id?: unknown; method?: unknown };
  const id = idOf(message.id);
  const [top, member] = err.path;
  if (id === null || top !== "params")
    return rpcError(reply, 400, jsonRpcErrors.INVALID_REQUEST, err.detail, undefined, id);
  if (message.method !== "tools/call")
    return rpcError(reply, 200, jsonRpcErrors.INVALID_PARAMS, err.detail, undefined, id);
  const code =
    member === "arguments" ? "INVALID_ARGUMENTS" : member === "_meta" ? "INVALID_META" : "INVALID_REQUEST";
  return reply.code(200).send({ jsonrpc: "2.0", id, result: refusalResult(code, err.detail) });
}
