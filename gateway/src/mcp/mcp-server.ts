import type { AuthenticatedKey } from "@countersign/core/keys";
import { inSpan } from "@countersign/core/telemetry";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { GatewayContext, McpContext } from "../context.js";
import { callTool } from "./tools-call.js";
import { listTools } from "./tools-list.js";

/**
 * The MCP server the agent talks to, for one HTTP request (the endpoint is
 * stateless, SPEC 4.2): the SDK handles initialize, ping and the JSON-RPC
 * framing; tools/list and tools/call are ours, for the authenticated key.
 */
export function gatewayMcpServer(ctx: GatewayContext & { mcp: McpContext }, key: AuthenticatedKey): Server {
  const server = new Server({ name: "countersign-gateway", version: "0.1.0" }, { capabilities: { tools: { listChanged: false } } });
  server.setRequestHandler(ListToolsRequestSchema, (request) => inSpan("mcp.tools_list", () => listTools(ctx.pool, key, request.params?.cursor)));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    inSpan("mcp.tools_call", () => callTool(ctx, key, request.params as Parameters<typeof callTool>[2], extra.signal)),
  );
  return server;
}
