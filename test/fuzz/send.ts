/**
 * Raw HTTP for the fuzz suite (node:http, keep-alive): any method, TRACE
 * included, headers with any latin1 byte, bodies as given bytes; fetch would
 * refuse or rewrite some of them.
 */
import http from "node:http";
import type { Answer } from "./answers.js";
import type { FuzzRequest } from "./requests.js";

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export function send(base: string, r: FuzzRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const url = new URL(base);
    const headers: Record<string, string> = { ...r.headers };
    for (const [k, v] of Object.entries(headers)) if (v === "") delete headers[k];
    const req = http.request(
      { host: url.hostname, port: url.port, method: r.method, path: r.path, headers, agent, timeout: 60_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (d: Buffer) => chunks.push(d));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error("no answer within 60 s")));
    req.on("error", reject);
    req.end(r.body);
  });
}

export function closeConnections(): void {
  agent.destroy();
}
