/**
 * The MCP server a newcomer brings: built with the official SDK's McpServer (a tool declared with a
 * zod schema, as the SDK's own examples do), stateless Streamable HTTP on plain http at
 * 127.0.0.1 on a port of the system's choosing, which is what `make run` (loopback switched on)
 * lets a person register. It records every call that reached the tool, so a test can tell a call
 * the Gateway ran from one it refused.
 *
 * docs/dashboard.md's walk-through runs it by hand, as the newcomer's server:
 * `node --import tsx test/dashboard/first-hour-upstream.ts [port]` prints its URL and runs until Ctrl-C.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { pathToFileURL } from "node:url";
import { z } from "zod";

export interface RefundsServer {
  url: string;
  /** Arguments of every refund_payment call that reached the tool, in order. */
  refunds: Record<string, unknown>[];
  close(): Promise<void>;
}

const readBody = async (req: IncomingMessage): Promise<unknown> => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
};

/** Starts the server on 127.0.0.1 at `port` (0: a free one the system picks). */
export async function startRefundsServer(port = 0): Promise<RefundsServer> {
  const refunds: Record<string, unknown>[] = [];
  const build = () => {
    const server = new McpServer({ name: "acme-payments", version: "1.0.0" });
    server.registerTool(
      "refund_payment",
      {
        description: "Refund part of an order to the customer's card",
        inputSchema: {
          order_id: z.string(),
          amount: z.number().positive(),
          reason: z.string().optional(),
        },
      },
      async (args) => {
        refunds.push(args);
        return {
          content: [{ type: "text", text: `Refunded ${args.amount} EUR on order ${args.order_id}.` }],
          structuredContent: {
            refund_id: `re_${refunds.length}`,
            order_id: args.order_id,
            amount: args.amount,
          },
        };
      },
    );
    server.registerTool(
      "lookup_order",
      { description: "Read an order", inputSchema: { order_id: z.string() } },
      async ({ order_id }) => ({ content: [{ type: "text", text: `Order ${order_id}: 2 items, 480 EUR.` }] }),
    );
    return server;
  };
  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== "POST") return void res.writeHead(405, { allow: "POST" }).end();
    const body = await readBody(req);
    const server = build();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
  const http = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, "127.0.0.1", resolve);
  });
  const addr = http.address();
  const bound = typeof addr === "object" && addr ? addr.port : port;
  return {
    url: `http://127.0.0.1:${bound}/mcp`,
    refunds,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = await startRefundsServer(Number(process.argv[2] ?? 0));
  process.stdout.write(`MCP server: ${server.url} (tools refund_payment, lookup_order; Ctrl-C stops it)\n`);
  process.once("SIGINT", () => void server.close());
}
