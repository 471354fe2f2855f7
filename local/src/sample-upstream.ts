import { createHmac } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import { serviceAware } from "@countersign/client/server";
import type { IdentityDocument, Kid } from "@countersign/protocol/evidence";

/** The sample upstream's one tool: what the demo's Gateway-enforced tool runs. */
export const SAMPLE_TOOL = "refund_payment";

const refund: Handler = async ({ order_id, amount }) => ({
  content: [{ type: "text", text: `Refunded ${amount} EUR on order ${order_id} (sample upstream).` }],
  structuredContent: { order_id, amount, refund_id: `re_${Date.now().toString(36)}` },
});

type Attesting = ReturnType<typeof serviceAware>;
type Handler = (args: {
  order_id: string;
  amount: number;
}) => Promise<{ content: { type: "text"; text: string }[]; structuredContent: Record<string, unknown> }>;

function sampleServer(countersign: Attesting | null): McpServer {
  const server = new McpServer({ name: "countersign-sample-upstream", version: "0.1.0" });
  countersign?.declare(server);
  server.registerTool(
    SAMPLE_TOOL,
    {
      description: "Refund part of an order (a sample: nothing is paid back)",
      inputSchema: { order_id: z.string(), amount: z.number().int().positive() },
    },
    (countersign ? countersign.tool(SAMPLE_TOOL, refund) : refund) as Handler,
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
 * itself runs. Given an identity it is service-aware: it takes calls only
 * with the evidence signed by the local Gateway (`gateway`) and attests its
 * results with its own identity (`seed`), so the demo's receipts carry a
 * trusted attestation; without one it is a plain upstream (the benchmark's).
 */
export async function startSampleUpstream(
  host: string,
  port: number,
  identity?: { seed: Uint8Array; gateway: Kid },
): Promise<{
  url: string;
  kid: Kid | null;
  identity(organizationId: string, serverId: string): IdentityDocument;
  stop(): Promise<void>;
}> {
  const countersign = identity ? serviceAware({ seed: identity.seed, gateways: [identity.gateway] }) : null;
  const http = createServer(async (req, res) => {
    if (req.method !== "POST") return void res.writeHead(405, { allow: "POST" }).end();
    let body: unknown;
    try {
      body = await readBody(req);
    } catch {
      return void res.writeHead(400).end();
    }
    const server = sampleServer(countersign);
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
  });
  // A port another program holds is a start failure make run reports in one line, not an uncaught 'error' event.
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, host, () => {
      http.off("error", reject);
      resolve();
    });
  });
  const addr = http.address();
  const bound = typeof addr === "object" && addr ? addr.port : port;
  return {
    url: `http://127.0.0.1:${bound}/mcp`,
    kid: countersign?.kid ?? null,
    identity: (organizationId, serverId) => {
      if (!countersign) throw new Error("this sample upstream has no identity");
      return countersign.identity({ organizationId, serverId, name: "Sample upstream (make run)" });
    },
    stop: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/**
 * The sample upstream's identity seed, derived from the local Gateway's
 * signing key so it is the same on every run of one data folder (and its
 * registered identity stays the one the receipts name).
 */
export function sampleUpstreamSeed(gatewaySigningKey: Uint8Array): Uint8Array {
  return createHmac("sha256", gatewaySigningKey).update("countersign sample upstream identity").digest();
}
