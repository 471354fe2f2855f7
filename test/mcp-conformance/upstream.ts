/**
 * The upstream MCP server the Gateway stands in front of in the conformance
 * run: our own, implementing the tools the suite's scenarios call
 * (upstream-tools.ts), since the suite's own reference server is not
 * published on npm. Built with the official SDK v1 (low-level `Server`, so
 * each tool's input schema is listed exactly as written, 2020-12 keywords
 * included) over Streamable HTTP with sessions, as most servers run, on
 * 127.0.0.1 and a port the system chooses. It speaks the 2025 revisions,
 * which is how the Gateway calls a server that speaks them, in both runs
 * (docs/gateway.md, "Upstream revisions").
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { conformanceTools } from "./upstream-tools.js";

export interface ConformanceUpstream {
  url: string;
  close(): Promise<void>;
}

const readBody = async (req: IncomingMessage): Promise<unknown> => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
};

/** One MCP server per session: tools (the list is fixed) and logging, for the log-sending tool. */
function mcpServer(): Server {
  const server = new Server(
    { name: "countersign-conformance-upstream", version: "1.0.0" },
    { capabilities: { tools: {}, logging: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [...conformanceTools.values()].map((t) => t.listing),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = conformanceTools.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return tool.run(request.params.arguments ?? {}, extra);
  });
  return server;
}

export async function startConformanceUpstream(): Promise<ConformanceUpstream> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer(async (req, res) => {
    const sid = req.headers["mcp-session-id"];
    let body: unknown;
    try {
      body = req.method === "POST" ? await readBody(req) : undefined;
    } catch {
      // A body that is not JSON: the JSON-RPC parse error, over HTTP 400.
      res
        .writeHead(400, { "content-type": "application/json" })
        .end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }));
      return;
    }
    if (typeof sid === "string") {
      const transport = sessions.get(sid);
      if (!transport) return void res.writeHead(404).end();
      return transport.handleRequest(req, res, body);
    }
    // Without a session, only a POST (an initialize) may open one: the transport answers it.
    if (req.method !== "POST") return void res.writeHead(400).end();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await mcpServer().connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const addr = http.address();
  return {
    url: `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}/mcp`,
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
