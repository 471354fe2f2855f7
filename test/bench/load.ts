/**
 * A closed-loop load generator over keep-alive HTTP/1.1: `connections`
 * workers each send one request, wait for the answer, send the next, for
 * `seconds`. Latency is measured per request from send to last byte.
 *
 * It speaks HTTP/1.1 on raw sockets rather than through `node:http`: the
 * generator shares this machine's cores with the servers it measures, and
 * `http.request` cost about a fifth of a core per thousand requests (an
 * agent, a parser, a request and a response object per call). Here a
 * request is one string written to the socket and an answer is read by its
 * `content-length` or its chunks; `BENCH_LOAD=http` selects the `node:http`
 * client instead, to cross-check the two.
 */
import http from "node:http";
import net from "node:net";

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

interface Answer {
  code: number;
  text: string;
}
type Send = (headers: Record<string, string>, body: string) => Promise<Answer>;

function statusOf(code: number, text: string): string {
  try {
    return (JSON.parse(text) as { status?: string }).status ?? String(code);
  } catch {
    return String(code);
  }
}

const HEAD_END = Buffer.from("\r\n\r\n");
const CRLF = Buffer.from("\r\n");

/**
 * Where the answer at the start of `buf` ends, and its status and body, or
 * undefined while it is incomplete. Handles `content-length` and chunked
 * bodies, which is all our servers send on a keep-alive connection.
 */
function parseAnswer(buf: Buffer): { end: number; code: number; body: Buffer; close: boolean } | undefined {
  const headEnd = buf.indexOf(HEAD_END);
  if (headEnd < 0) return undefined;
  const head = buf.toString("latin1", 0, headEnd).toLowerCase();
  const code = Number(head.slice(9, 12));
  const close = /\r\nconnection: *close/.test(head);
  const length = /\r\ncontent-length: *(\d+)/.exec(head);
  const start = headEnd + 4;
  if (length) {
    const end = start + Number(length[1]);
    return buf.length < end ? undefined : { end, code, body: buf.subarray(start, end), close };
  }
  if (!/\r\ntransfer-encoding: *chunked/.test(head)) throw new Error(`an answer with no length: ${head}`);
  const parts: Buffer[] = [];
  let at = start;
  for (;;) {
    const lineEnd = buf.indexOf(CRLF, at);
    if (lineEnd < 0) return undefined;
    const size = parseInt(buf.toString("latin1", at, lineEnd), 16);
    const dataEnd = lineEnd + 2 + size;
    if (buf.length < dataEnd + 2) return undefined;
    if (size === 0) return { end: dataEnd + 2, code, body: Buffer.concat(parts), close };
    parts.push(buf.subarray(lineEnd + 2, dataEnd));
    at = dataEnd + 2;
  }
}

/** One keep-alive connection sending one request at a time; it reconnects when the server closes it. */
function rawConnection(url: URL, path: string): { send: Send; close: () => void } {
  let socket: net.Socket | undefined;
  let waiting: { resolve: (a: Answer) => void; reject: (e: Error) => void } | undefined;
  const connect = () => {
    const s = net.connect({ host: url.hostname, port: Number(url.port) });
    s.setNoDelay(true);
    let buffered: Buffer = Buffer.alloc(0);
    s.on("data", (chunk: Buffer) => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      let parsed;
      try {
        parsed = parseAnswer(buffered);
      } catch (e) {
        waiting?.reject(e as Error);
        return;
      }
      if (!parsed || !waiting) return;
      const w = waiting;
      waiting = undefined;
      buffered = buffered.subarray(parsed.end);
      if (parsed.close) {
        s.destroy();
        socket = undefined;
      }
      w.resolve({ code: parsed.code, text: parsed.body.toString("utf8") });
    });
    const lost = (e?: Error) => {
      if (socket !== s) return; // a socket this connection already left
      socket = undefined;
      const w = waiting;
      waiting = undefined;
      w?.reject(e ?? new Error("the server closed the connection"));
    };
    s.on("error", lost);
    s.on("close", () => lost());
    return s;
  };
  const host = `host: ${url.host}\r\n`;
  return {
    send(headers, body) {
      socket ??= connect();
      let head = `POST ${path} HTTP/1.1\r\n${host}content-length: ${Buffer.byteLength(body)}\r\n`;
      for (const name in headers) head += `${name}: ${headers[name]}\r\n`;
      return new Promise<Answer>((resolve, reject) => {
        waiting = { resolve, reject };
        socket!.write(`${head}\r\n${body}`);
      });
    },
    close: () => socket?.destroy(),
  };
}

/** The same through `node:http` (BENCH_LOAD=http). */
function httpConnection(url: URL, path: string, agent: http.Agent): { send: Send; close: () => void } {
  return {
    send: (headers, body) =>
      new Promise((resolve, reject) => {
        const req = http.request(
          {
            agent,
            host: url.hostname,
            port: url.port,
            path,
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
      }),
    close: () => agent.destroy(),
  };
}

export async function runLoad(target: LoadTarget, connections: number, seconds: number): Promise<LoadResult> {
  const useHttp = process.env.BENCH_LOAD === "http";
  const urls = target.urls.map((u) => new URL(u));
  const agents = urls.map(() => new http.Agent({ keepAlive: true, maxSockets: connections }));
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let i = 0;
  const end = Date.now() + seconds * 1000;
  const started = process.hrtime.bigint();
  const opened: Array<{ close: () => void }> = [];
  await Promise.all(
    Array.from({ length: connections }, async (_, w) => {
      // One connection per URL per worker, so that each worker spreads its calls over every process.
      const conns = urls.map((u, k) =>
        useHttp ? httpConnection(u, target.path, agents[k]!) : rawConnection(u, target.path),
      );
      opened.push(...conns);
      while (Date.now() < end) {
        const n = i++;
        const { headers, body } = target.request(n);
        const t0 = process.hrtime.bigint();
        const res = await conns[(w + n) % conns.length]!.send(headers, body);
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        const status = (target.classify ?? statusOf)(res.code, res.text);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  for (const c of opened) c.close();
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
