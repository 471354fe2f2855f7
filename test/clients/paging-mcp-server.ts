/**
 * A real MCP server (SDK low-level Server, stateless Streamable HTTP) whose
 * tools/list always has another page: what a broken or hostile server looks
 * like to a client that must stop after 1000 pages.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

export async function startEndlessPagingServer(): Promise<{
  url: string;
  pages: () => number;
  close(): Promise<void>;
}> {
  let pages = 0;
  const http = createServer(async (req, res) => {
    if (req.method !== "POST") return void res.writeHead(405, { allow: "POST" }).end();
    const server = new Server({ name: "endless", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async (request) => {
      pages++;
      const n = Number(request.params?.cursor ?? 0);
      return {
        tools: [{ name: `tool_${n}`, inputSchema: { type: "object" as const } }],
        nextCursor: String(n + 1),
      };
    });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    pages: () => pages,
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}
