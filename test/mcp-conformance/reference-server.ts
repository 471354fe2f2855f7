/**
 * The conformance suite's own reference server ("everything server",
 * reference-server/everything-server.ts, vendored verbatim from
 * github.com/modelcontextprotocol/conformance at c321dd3, the commit of
 * 0.2.0-alpha.11; the npm package ships only the CLI), run as its authors run
 * it (`tsx everything-server.ts`, PORT in the environment) on a free loopback
 * port. Alone it passes the suite (docs/gateway.md, "Conformance").
 */
import { fileURLToPath } from "node:url";
import { onFreePort } from "../fixtures/free-port.js";
import { startNodeProcess, type NodeProcess } from "../fixtures/node-process.js";

const script = fileURLToPath(new URL("./reference-server/everything-server.ts", import.meta.url));

export interface ReferenceServer {
  url: string;
  close(): Promise<void>;
}

export function startReferenceServer(): Promise<ReferenceServer> {
  return onFreePort(async (port) => {
    const child: NodeProcess = startNodeProcess(["--import", "tsx", script], { env: { PORT: String(port) } });
    const deadline = Date.now() + 30_000;
    while (!child.output().includes("MCP Conformance Test Server running")) {
      const ended = await Promise.race([child.exited, new Promise((r) => setTimeout(r, 50, "running"))]);
      if (ended !== "running") throw new Error(`the reference server stopped: ${child.output()}`);
      if (Date.now() > deadline) {
        await child.stop();
        throw new Error(`the reference server did not start: ${child.output()}`);
      }
    }
    return { url: `http://127.0.0.1:${port}/mcp`, close: async () => void (await child.stop()) };
  });
}
