import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { jsonRpcErrors } from "@countersign/protocol/errors";
import { inSpan } from "@countersign/core/telemetry";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { GatewayContext, McpContext } from "../context.js";
import { checkGatewayKey } from "../http/key-check.js";
import { sendUnavailable } from "../http/unavailable.js";
import { gatewayMcpServer } from "./mcp-server.js";

function rpcError(reply: FastifyReply, http: number, code: number, message: string, data?: unknown): FastifyReply {
  return reply.code(http).send({ jsonrpc: "2.0", id: null, error: { code, message, ...(data === undefined ? {} : { data }) } });
}

/**
 * POST /mcp (SPEC 4.2, 7.3): JSON-RPC 2.0 over Streamable HTTP, stateless,
 * the gateway key on every request. HTTP-level refusals come first and
 * record nothing: 401 -32001, 429 -32000 with Retry-After (a batch costs one
 * token per message), 413 -32600, 400 -32700, 405 for other methods, 503 for
 * an unreachable database, 500 -32603 naming the request id.
 */
export async function mcpRoutes(app: FastifyInstance, ctx: GatewayContext & { mcp: McpContext }) {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err.statusCode === 413) return rpcError(reply, 413, jsonRpcErrors.BODY_TOO_LARGE, "the request body is larger than 1 MiB");
    // The only 400s fastify raises before the handler are about the body: not JSON, or empty.
    if (err.statusCode === 400) {
      return rpcError(reply, 400, jsonRpcErrors.PARSE_ERROR, "the body is not valid JSON");
    }
    if (err.statusCode === 415) return rpcError(reply, 415, jsonRpcErrors.INVALID_REQUEST, "send JSON-RPC as application/json");
    request.log.error({ err }, "mcp request failed");
    return rpcError(reply, 500, jsonRpcErrors.INTERNAL_ERROR, `internal error; request id ${request.id}`);
  });

  app.route({
    method: ["GET", "PUT", "PATCH", "DELETE"],
    url: "/mcp",
    handler: async (_request, reply) => rpcError(reply.header("allow", "POST"), 405, jsonRpcErrors.WRONG_METHOD, "this endpoint is stateless: use POST"),
  });

  app.post("/mcp", (request, reply) => inSpan("POST /mcp", () => handle(request, reply), { "http.route": "/mcp", "http.request.method": "POST" }));

  async function handle(request: FastifyRequest, reply: FastifyReply) {
    const messages = Array.isArray(request.body) ? Math.max(1, request.body.length) : 1;
    const access = await checkGatewayKey(ctx, request, messages);
    if (!access.ok) {
      if (access.refusal === "unavailable") return sendUnavailable(request, reply, "DATABASE_UNAVAILABLE");
      if (access.refusal === "rate_limited") {
        const seconds = Math.max(1, Math.ceil(access.waitSeconds));
        return rpcError(reply.header("retry-after", String(seconds)), 429, jsonRpcErrors.RATE_LIMITED, `too many requests for this key; retry in ${seconds} s`, {
          retry_after_seconds: seconds,
        });
      }
      return rpcError(reply, 401, jsonRpcErrors.UNAUTHORIZED, "no valid gateway key");
    }
    const server = gatewayMcpServer(ctx, access.key);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    reply.raw.setHeader("x-request-id", request.id);
    reply.hijack();
    reply.raw.on("close", () => {
      void transport.close();
      void server.close();
    });
    await transport.handleRequest(request.raw, reply.raw, request.body);
  }
}
