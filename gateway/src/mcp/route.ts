import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { isRequestTextError } from "@countersign/core/server";
import { jsonRpcErrors } from "@countersign/protocol/errors";
import type { AuthenticatedKey } from "@countersign/core/keys";
import { inSpan, type Span } from "@countersign/core/telemetry";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { GatewayContext, McpContext } from "../context.js";
import { checkGatewayKey } from "../http/key-check.js";
import { StaleAdmission } from "@countersign/core/decision";
import { edgeRefusal, otherMethods, rpcError } from "../http/edge.js";
import { callIntentOf, type AdmittedContext } from "./call-intent.js";
import { refuseKeyCheck } from "./key-refusal.js";
import { refuseText } from "./text-refusal.js";
import { guardHandlers } from "./handler-errors.js";
import { gatewayMcpServer, transportOptions } from "./mcp-server.js";
import { answerDirectly, directToolsCall } from "./direct-tools-call.js";
import { asksForProgress } from "./progress.js";
import { originAllowed, refuseOrigin } from "../http/origin.js";
import { mayBeModern, ModernMcp, MODERN_REVISION, requestIdOf } from "./modern.js";

/**
 * POST /mcp (SPEC 4.2, 7.3): JSON-RPC 2.0 over Streamable HTTP, stateless,
 * the gateway key on every request. HTTP-level refusals come first and
 * record nothing: 401 -32001, 429 -32000 with Retry-After (a batch costs one
 * token per message), 413 -32600, 400 -32700, 405 for other methods, 503 for
 * an unreachable database, 500 -32603 naming the request id; before them all,
 * 403 for a browser Origin that may not call (http/origin.ts). MCP 2026-07-28
 * requests go to the v2 SDK's server (modern.ts), the 2025 revisions and
 * 2024-11-05 to the v1 SDK's (or the direct tools/call path).
 */
export async function mcpRoutes(app: FastifyInstance, ctx: GatewayContext & { mcp: McpContext }) {
  app.setErrorHandler(async (err: FastifyError, request, reply) => {
    const edge = edgeRefusal(err, request, reply);
    if (edge) return edge;
    if (isRequestTextError(err)) return refuseText(ctx, err, request, reply);
    request.log.error({ err }, "mcp request failed");
    return rpcError(reply, 500, jsonRpcErrors.INTERNAL_ERROR, `internal error; request id ${request.id}`);
  });

  app.route({
    method: otherMethods(app),
    url: "/mcp",
    // Answered before the body is read: the method is wrong whatever the body says.
    onRequest: async (_request, reply) =>
      rpcError(
        reply.header("allow", "POST"),
        405,
        jsonRpcErrors.WRONG_METHOD,
        "this endpoint is stateless: use POST",
      ),
    handler: async (_request, reply) => reply,
  });

  const modern = new ModernMcp(ctx);
  app.addHook("onClose", () => modern.close());

  app.post("/mcp", (request, reply) =>
    inSpan("POST /mcp", (span) => handle(request, reply, span), {
      "http.route": "/mcp",
      "http.request.method": "POST",
    }),
  );

  async function handle(
    request: FastifyRequest,
    reply: FastifyReply,
    span: Span,
    rerun?: { raced: boolean },
  ): Promise<unknown> {
    if (!originAllowed(request.headers.origin, ctx.mcp.allowedOrigins)) return refuseOrigin(request, reply);
    const messages = Array.isArray(request.body) ? Math.max(1, request.body.length) : 1;
    const intent = callIntentOf(request.body);
    // The cheap look first: a 2025 request pays a header lookup and one property read.
    const isModern = mayBeModern(request) && (await modern.isModern(request));
    const direct = !isModern && ctx.mcp.directToolsCall ? directToolsCall(request) : undefined;
    // Admitted warm only where a StaleAdmission can be answered by running the request again:
    // on the direct path, which sends nothing before its decision's write held.
    const access = await checkGatewayKey(ctx, request, messages, intent, !direct || rerun !== undefined);
    if (!access.ok)
      return refuseKeyCheck(request, reply, access, isModern ? requestIdOf(request.body) : null);
    const admitted = intent ? { intent, context: access.context, raced: rerun?.raced } : undefined;
    span.setAttribute("countersign.mcp_dispatch", isModern ? MODERN_REVISION : direct ? "direct" : "sdk");
    // Authorized on the body like every request; the revision's headers only had to agree with it.
    if (isModern) return modern.answer(request, reply, access.key, admitted);
    if (direct) {
      const answered = await answerDirectly(ctx, access.key, admitted, direct, request, reply);
      if (answered instanceof StaleAdmission) {
        ctx.metrics.admissions.inc({ admission: "stale" });
        return handle(request, reply, span, { raced: answered.raced });
      }
      return;
    }
    return answerWithSdk(request, reply, access.key, admitted);
  }

  /** Everything but a single tools/call: a server and a transport of the SDK for this one request. */
  async function answerWithSdk(
    request: FastifyRequest,
    reply: FastifyReply,
    key: AuthenticatedKey,
    admitted: AdmittedContext | undefined,
  ) {
    const server = gatewayMcpServer(ctx, key, admitted);
    guardHandlers(server, request.id, request.log);
    // A call that asked for progress is answered on an SSE stream, which can carry it (progress.ts).
    const transport = new StreamableHTTPServerTransport({
      ...transportOptions,
      enableJsonResponse: !asksForProgress(request.body),
    });
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
