// /metrics (Prometheus text), /healthz (the process is alive) and /readyz (it can do its work)
// on the operator's own port.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { OperatorMetrics } from "./metrics.js";

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

export async function startHealthServer(
  metrics: OperatorMetrics,
  options: { port: number; host?: string; healthy: () => boolean; ready?: () => string | undefined },
): Promise<HealthServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method === "GET" && path === "/metrics") {
      metrics.registry.metrics().then(
        (text) => {
          res.writeHead(200, { "content-type": metrics.registry.contentType });
          res.end(text);
        },
        () => {
          res.writeHead(500);
          res.end();
        },
      );
      return;
    }
    if (req.method === "GET" && path === "/healthz") {
      const ok = options.healthy();
      res.writeHead(ok ? 200 : 503, { "content-type": "text/plain" });
      res.end(ok ? "ok\n" : "unhealthy\n");
      return;
    }
    if (req.method === "GET" && path === "/readyz") {
      const problem = options.ready?.();
      res.writeHead(problem ? 503 : 200, { "content-type": "text/plain" });
      res.end(problem ? `not ready: ${problem}\n` : "ok\n");
      return;
    }
    res.writeHead(404, { "content-type": "text/plain" });
    res.end("not found\n");
  });
  await new Promise<void>((resolve) => server.listen(options.port, options.host ?? "0.0.0.0", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
