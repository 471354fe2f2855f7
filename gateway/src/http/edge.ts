import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { jsonRpcErrors } from "@countersign/protocol/errors";
import { isRequestTextError } from "@countersign/core/server";
import { refuse, refuseInternal } from "../authorize/answers.js";

/** A JSON-RPC error answer of /mcp's HTTP level (SPEC 7.3). */
export function rpcError(
  reply: FastifyReply,
  http: number,
  code: number,
  message: string,
  data?: unknown,
  id: string | number | null = null,
): FastifyReply {
  return reply
    .code(http)
    .send({ jsonrpc: "2.0", id, error: { code, message, ...(data === undefined ? {} : { data }) } });
}

export const isMcp = (request: FastifyRequest) =>
  request.url === "/mcp" || request.url.startsWith("/mcp?") || request.url.startsWith("/mcp/");

/** Every method but POST (and HEAD, which fastify answers with its GET twin): 405 on both endpoints (SPEC 4.2). */
export const otherMethods = (app: FastifyInstance): string[] =>
  app.supportedMethods.filter((m) => m !== "POST" && m !== "HEAD");

/** A path the Gateway does not serve, or cannot even read: 404 in the protocol its prefix suggests. */
export function gatewayNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (isMcp(request))
    return rpcError(
      reply,
      404,
      jsonRpcErrors.INVALID_REQUEST,
      "no such endpoint; JSON-RPC goes to POST /mcp",
    );
  return refuse(reply, 404, "NOT_FOUND", "no such endpoint; decisions are asked with POST /v1/authorize");
}

/**
 * What fastify raises before a handler runs (the body parser, the body limit,
 * the media type, the text rule on the path and query), as the error of the
 * request's protocol. Undefined for a body breaking the text rule, which each
 * endpoint answers after its key check, and for anything unexpected.
 */
export function edgeRefusal(
  err: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply | undefined {
  const mcp = isMcp(request);
  const as = (http: number, rpc: number, detail: string) =>
    mcp ? rpcError(reply, http, rpc, detail) : refuse(reply, http, "INVALID_REQUEST", detail);
  if (isRequestTextError(err)) {
    if (err.where === "path") return gatewayNotFound(request, reply);
    if (err.where === "query") return as(400, jsonRpcErrors.INVALID_REQUEST, err.message);
    if (err.kind === "json") return as(400, jsonRpcErrors.PARSE_ERROR, err.message);
    return undefined;
  }
  if (err.statusCode === 413)
    return as(413, jsonRpcErrors.BODY_TOO_LARGE, "the request body is larger than 1 MiB");
  if (err.statusCode === 415)
    return as(415, jsonRpcErrors.INVALID_REQUEST, "send the body as application/json");
  if (err.code === "FST_ERR_CTP_INVALID_CONTENT_LENGTH")
    return as(400, jsonRpcErrors.INVALID_REQUEST, "Content-Length does not match the body");
  if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500)
    return as(400, jsonRpcErrors.INVALID_REQUEST, "the request is malformed");
  return undefined;
}

/** Errors of requests outside the two endpoints' own handlers (unknown paths, /metrics), in the same shapes. */
export async function gatewayErrors(
  err: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const edge = edgeRefusal(err, request, reply);
  if (edge) return edge;
  const mcp = isMcp(request);
  if (isRequestTextError(err))
    return mcp
      ? rpcError(reply, 400, jsonRpcErrors.INVALID_REQUEST, err.detail)
      : refuse(reply, 400, "INVALID_REQUEST", err.detail);
  request.log.error({ err }, "request failed");
  return mcp
    ? rpcError(reply, 500, jsonRpcErrors.INTERNAL_ERROR, `internal error; request id ${request.id}`)
    : refuseInternal(request, reply);
}
