/**
 * An upstream MCP server that speaks only MCP 2026-07-28: the official v2
 * server package (`createMcpHandler`, `legacy: "reject"`, so a 2025
 * `initialize` is refused with the revision's -32022) on node:http, with two
 * tools: `echo` (answers what it was asked) and `confirm` (answers
 * `input_required`, asking its client to confirm). It counts what reached it:
 * the `server/discover` requests and the tools/call requests per revision
 * header.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { createMcpHandler, inputRequired, Server } from "@modelcontextprotocol/server";

export interface ModernUpstream {
  url: string;
  /** The Gateway's revision probes received (server/discover with its id; a v2 client sends its own at connect). */
  discovers: number;
  /** tools/call requests received, by their MCP-Protocol-Version header. */
  calls: Record<string, number>;
  /** Requests answered with an HTTP error (a 2025 initialize, refused). */
  refused: number;
  close(): Promise<void>;
}

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
};

export async function startModernUpstream(): Promise<ModernUpstream> {
  const handler = createMcpHandler(
    () => {
      const server = new Server({ name: "modern-only", version: "1.0.0" }, { capabilities: { tools: {} } });
      server.setRequestHandler("tools/list", () => ({
        tools: [
          { name: "echo", inputSchema: { type: "object" } },
          { name: "confirm", inputSchema: { type: "object" } },
        ],
      }));
      server.setRequestHandler("tools/call", (request) => {
        if (request.params.name === "confirm")
          return inputRequired({
            inputRequests: {
              confirm: inputRequired.elicit({
                message: "Really?",
                requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
              }),
            },
          });
        return {
          content: [{ type: "text", text: `echo: ${JSON.stringify(request.params.arguments ?? {})}` }],
          structuredContent: { echoed: request.params.arguments ?? {} },
        };
      });
      return server;
    },
    { legacy: "reject", responseMode: "json" },
  );
  const up: ModernUpstream = { url: "", discovers: 0, calls: {}, refused: 0, close: async () => {} };
  const http = createServer(async (req, res) => {
    const text = req.method === "POST" ? await readBody(req) : undefined;
    const body = text ? (JSON.parse(text) as { method?: string; id?: unknown }) : undefined;
    const version = String(req.headers["mcp-protocol-version"] ?? "(none)");
    if (body?.method === "server/discover" && body.id === "countersign-era-probe") up.discovers++;
    if (body?.method === "tools/call") up.calls[version] = (up.calls[version] ?? 0) + 1;
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const response = await handler.fetch(
      new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body: text }),
    );
    if (response.status >= 400) up.refused++;
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  up.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  up.close = async () => {
    await handler.close();
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  return up;
}
