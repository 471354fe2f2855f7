/**
 * An OTLP/HTTP receiver for `make profile`: the Gateway exports its spans
 * (OTEL_EXPORTER_OTLP_ENDPOINT, JSON over HTTP, the SDK exporter's default)
 * to it, and it tells how long each stage of a request took: where an
 * unloaded call's latency goes, which a CPU profile (time on a core) does
 * not show (waiting for PostgreSQL's commit, for the upstream's answer).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

interface OtlpSpan {
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
}
interface OtlpExport {
  resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: OtlpSpan[] }> }>;
}

export interface SpanStage {
  name: string;
  /** Spans of this name per request. */
  perRequest: number;
  p50ms: number;
  p90ms: number;
}

export interface SpanCollector {
  endpoint: string;
  /** Forgets the spans received so far (a warm-up's). */
  reset(): void;
  /** Each span name's durations over `requests` requests, slowest p50 first. */
  stages(requests: number): SpanStage[];
  close(): Promise<void>;
}

const quantile = (sorted: number[], q: number) => sorted[Math.floor(q * (sorted.length - 1))]!;

export async function startSpanCollector(): Promise<SpanCollector> {
  let durations = new Map<string, number[]>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpExport;
        for (const rs of body.resourceSpans ?? [])
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? []) {
              const ms = Number(BigInt(s.endTimeUnixNano) - BigInt(s.startTimeUnixNano)) / 1e6;
              let list = durations.get(s.name);
              if (!list) durations.set(s.name, (list = []));
              list.push(ms);
            }
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    reset: () => (durations = new Map()),
    stages: (requests) =>
      [...durations]
        .map(([name, list]) => {
          const sorted = [...list].sort((a, b) => a - b);
          return {
            name,
            perRequest: list.length / Math.max(1, requests),
            p50ms: quantile(sorted, 0.5),
            p90ms: quantile(sorted, 0.9),
          };
        })
        .sort((a, b) => b.p50ms - a.p50ms),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
