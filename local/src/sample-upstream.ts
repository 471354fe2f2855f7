import { createServer, type IncomingMessage } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

/** The sample upstream's one tool: what the demo's Gateway-enforced tool runs. */
export const SAMPLE_TOOL = "refund_payment";

function sampleServer(): McpServer {
  const server = new McpServer({ name: "countersign-sample-upstream", version: "0.1.0" });
  server.registerTool(
    SAMPLE_TOOL,
    {
      description: "Refund part of an order (a sample: nothing is paid back)",
      inputSchema: { order_id: z.string(), amount: z.number().int().positive() },
    },
    async ({ order_id, amount }) => ({
      content: [{ type: "text", text: `Refunded ${amount} EUR on order ${order_id} (sample upstream).` }],
      structuredContent: { order_id, amount, refund_id: `re_${Date.now().toString(36)}` },
    }),
  );
  return server;
}

const readBody = async (req: IncomingMessage): Promise<unknown> => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
};

/**
 * `make run`'s sample upstream MCP server (stateless Streamable HTTP on
 * loopback, plain http: the local Gateway runs with
 * COUNTERSIGN_ALLOW_LOOPBACK_URLS), so the demo has a tool the Gateway
 * itself runs.
 */
export async function startSampleUpstream(host: string, port: number): Promise<{ url: string; stop(): Promise<void> }> {
  const http = createServer(async (req, res) => {
    if (req.method !== "POST") return void res.writeHead(405, { allow: "POST" }).end();
    let body: unknown;
    try {
      body = await readBody(req);
    } catch {
      return void res.writeHead(400).end();
    }
    const server = sampleServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => http.listen(port, host, resolve));
  const addr = http.address();
  const bound = typeof addr === "object" && addr ? addr.port : port;
  return {
    url: `http://127.0.0.1:${bound}/mcp`,
    stop: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
