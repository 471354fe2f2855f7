/**
 * A closed-loop load generator over keep-alive HTTP/1.1: `connections`
 * workers each send one request, wait for the answer, send the next, for
 * `seconds`. Latency is measured per request from send to last byte.
 */
import http from "node:http";

export interface LoadResult {
  requests: number;
  perSecond: number;
  p50ms: number;
  p99ms: number;
  statuses: Record<string, number>;
}

export interface LoadTarget {
  /** Round-robin over these base URLs (one per Gateway process). */
  urls: string[];
  path: string;
  /** A request's headers and body; called per request so each can carry its own key. */
  request: (i: number) => { headers: Record<string, string>; body: string };
  /** What an answer counts as in `statuses` (default: its JSON `status` member, else the HTTP code). */
  classify?: (code: number, text: string) => string;
}

function statusOf(code: number, text: string): string {
  try {
    return (JSON.parse(text) as { status?: string }).status ?? String(code);
  } catch {
    return String(code);
  }
}

function send(
  agent: http.Agent,
  url: URL,
  headers: Record<string, string>,
  body: string,
): Promise<{ code: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers: { ...headers, "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve({ code: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

export async function runLoad(target: LoadTarget, connections: number, seconds: number): Promise<LoadResult> {
  const agents = target.urls.map(() => new http.Agent({ keepAlive: true, maxSockets: connections }));
  const urls = target.urls.map((u) => new URL(target.path, u));
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let i = 0;
  const end = Date.now() + seconds * 1000;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: connections }, async (_, w) => {
      while (Date.now() < end) {
        const n = i++;
        const which = (w + n) % urls.length;
        const { headers, body } = target.request(n);
        const t0 = process.hrtime.bigint();
        const res = await send(agents[which]!, urls[which]!, headers, body);
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        const status = (target.classify ?? statusOf)(res.code, res.text);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  for (const a of agents) a.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    requests: latencies.length,
    perSecond: latencies.length / elapsed,
    p50ms: at(0.5),
    p99ms: at(0.99),
    statuses,
  };
}
