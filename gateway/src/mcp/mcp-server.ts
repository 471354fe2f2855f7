import type { AuthenticatedKey } from "@countersign/core/keys";
import { inSpan } from "@countersign/core/telemetry";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolRequest,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { isDatabaseUnavailable } from "@countersign/core/store";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { GatewayContext, McpContext } from "../context.js";
import { unavailableDetails, unavailableRpcError } from "../http/unavailable.js";
import type { AdmittedContext } from "./call-intent.js";
import { refusalResult } from "./results.js";
import type { Notify } from "./progress.js";
import { callTool } from "./tools-call.js";
import { listTools } from "./tools-list.js";

// The database went away while a request was being answered (the key check before it
// passed): a retryable refusal in the request's own shape, never -32603 with pg's message.
export function unavailableAsRpcError(err: unknown): never {
  if (!isDatabaseUnavailable(err)) throw err;
  // The SDK answers a thrown error's own code, message and data (McpError would prefix the message).
  const e = unavailableRpcError("DATABASE_UNAVAILABLE");
  throw Object.assign(new Error(e.message), { code: e.code, data: e.data });
}

function unavailableAsRefusal(err: unknown): CallToolResult {
  if (!isDatabaseUnavailable(err)) throw err;
  return refusalResult("DATABASE_UNAVAILABLE", unavailableDetails.DATABASE_UNAVAILABLE);
}

/** The SDK's transport on /mcp: stateless, each answer one JSON body (no SSE stream). */
export const transportOptions = { sessionIdGenerator: undefined, enableJsonResponse: true } as const;

/**
 * The MCP server the agent talks to, for one HTTP request (the endpoint is
 * stateless, SPEC 4.2): the SDK handles initialize, ping and the JSON-RPC
 * framing; tools/list and tools/call are ours, for the authenticated key.
 */
// The SDK's Server builds an Ajv instance per Server unless given one, and this endpoint makes a
// Server per request; it validates nothing with it (no elicitation), so one serves them all.
const jsonSchemaValidator = new AjvJsonSchemaValidator();

export function gatewayMcpServer(
  ctx: GatewayContext & { mcp: McpContext },
  key: AuthenticatedKey,
  admitted?: AdmittedContext,
): Server {
  const server = new Server(
    { name: "countersign-gateway", version: "0.1.0" },
    { capabilities: { tools: { listChanged: false } }, jsonSchemaValidator },
  );
  server.setRequestHandler(ListToolsRequestSchema, (request) =>
    inSpan("mcp.tools_list", () => listTools(ctx.pool, key, request.params?.cursor)).catch(
      unavailableAsRpcError,
    ),
  );
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    answerToolsCall(ctx, key, request.params, extra.signal, admitted, extra.sendNotification),
  );
  return server;
}

/** tools/call's handler, for the SDK's server and for the direct path (direct-tools-call.ts) alike. */
export function answerToolsCall(
  ctx: GatewayContext & { mcp: McpContext },
  key: AuthenticatedKey,
  params: CallToolRequest["params"],
  signal: AbortSignal,
  admitted: AdmittedContext | undefined,
  notify?: Notify,
): Promise<CallToolResult> {
  return inSpan("mcp.tools_call", () =>
    callTool(ctx, key, params as Parameters<typeof callTool>[2], signal, admitted, notify),
  ).catch(unavailableAsRefusal);
}
