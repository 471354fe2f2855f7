import { request } from "node:https";
import { Readable, Transform } from "node:stream";
import { rootCertificates } from "node:tls";
import { AddressNotAllowedError, connectTarget, type AddressRules } from "@countersign/core/net";

/** Why an exchange with an MCP server failed, as the first failure saw it. */
export type UpstreamFailure =
  | { kind: "url_not_allowed"; reason: string }
  | { kind: "unreachable"; message: string }
  | { kind: "timeout" }
  | { kind: "too_large" }
  | { kind: "http"; status: number };

/** Bytes of all answers of one discovery together (SPEC 8.3: more than 8 MiB is DISCOVERY_TOO_LARGE). */
export class ByteBudget {
  used = 0;
  constructor(readonly max: number) {}
}

class TooLarge extends Error {}

/**
 * A fetch for the MCP SDK's Streamable HTTP client that connects only to
 * addresses allowed by SPEC 6.4 (judged again at every connection, to the
 * very address judged), counts every answer byte against the budget, and
 * remembers the first failure so the caller can answer with the right code
 * whatever the SDK wraps it in.
 */
export function upstreamFetch(o: { rules: AddressRules; ca?: string[]; budget: ByteBudget; signal: AbortSignal; failure: { first?: UpstreamFailure } }) {
  const ca = o.ca?.length ? [...rootCertificates, ...o.ca] : undefined;
  const fail = (f: UpstreamFailure) => {
    o.failure.first ??= f;
  };
  return async (input: string | URL, init: RequestInit = {}): Promise<Response> => {
    let target;
    try {
      target = await connectTarget(String(input), o.rules);
    } catch (err) {
      if (err instanceof AddressNotAllowedError) fail({ kind: "url_not_allowed", reason: err.reason });
      throw err;
    }
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((v, k) => (headers[k] = v));
    headers.host = target.url.host;
    const body = typeof init.body === "string" ? init.body : undefined;
    return new Promise<Response>((resolve, reject) => {
      const req = request(
        {
          host: target.address,
          family: target.family,
          port: target.port,
          servername: target.servername,
          path: `${target.url.pathname}${target.url.search}`,
          method: init.method ?? "GET",
          headers,
          ca,
          signal: o.signal,
        },
        (res) => {
          const counter = new Transform({
            transform(chunk: Buffer, _enc, cb) {
              o.budget.used += chunk.length;
              if (o.budget.used > o.budget.max) {
                fail({ kind: "too_large" });
                cb(new TooLarge("discovery answers exceed the budget"));
              } else cb(null, chunk);
            },
          });
          res.on("error", (e) => counter.destroy(e));
          res.pipe(counter);
          const status = res.statusCode ?? 502;
          // Only the JSON-RPC POSTs count: a stateless server answers the SDK's optional GET stream with 405.
          if (status >= 400 && (init.method ?? "GET") === "POST") fail({ kind: "http", status });
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === "string") h.set(k, v);
          const empty = status === 204 || status === 304 || (init.method ?? "GET") === "HEAD";
          resolve(new Response(empty ? null : (Readable.toWeb(counter) as ReadableStream), { status, headers: h }));
        },
      );
      req.on("error", (err) => {
        if (o.signal.aborted) fail({ kind: "timeout" });
        else fail({ kind: "unreachable", message: (err as NodeJS.ErrnoException).code ?? err.message });
        reject(err);
      });
      req.end(body);
    });
  };
}
