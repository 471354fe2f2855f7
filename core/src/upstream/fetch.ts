import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { Readable, Transform } from "node:stream";
// The URL rule (https per SPEC 6.4, or loopback http under the loopback switch) is the Cloud API's too.
import {
  AddressNotAllowedError,
  upstreamTarget,
  type AddressRules,
  type ConnectTarget,
} from "../net/index.js";
import { upstreamAgent } from "./agents.js";

/** Why an exchange with an MCP server failed, as the first failure saw it. */
export type UpstreamFailure =
  | { kind: "url_not_allowed"; reason: string }
  | { kind: "unreachable"; message: string }
  | { kind: "timeout" }
  | { kind: "too_large" }
  | { kind: "http"; status: number };

/** Bytes of all answers of one exchange together (discovery: 8 MiB; a tool call: 1 MiB, SPEC 8.3). */
export class ByteBudget {
  used = 0;
  constructor(readonly max: number) {}
}

class TooLarge extends Error {}

export interface UpstreamFetchOptions {
  rules: AddressRules;
  /** Extra CA certificates besides the usual roots (COUNTERSIGN_UPSTREAM_CA_FILE, tests): see trust.ts. */
  ca?: readonly string[];
  budget: ByteBudget;
  signal: AbortSignal;
  /** The first failure, whatever the MCP SDK wraps it in, so the caller answers with the right code. */
  failure: { first?: UpstreamFailure };
  /**
   * Ends the call at once when an answer passes the budget. The SDK rejects
   * its request when a JSON answer breaks, but only reports an SSE stream's
   * error and keeps waiting for the answer, which would then end as a timeout.
   */
  abort?: () => void;
}

/**
 * A fetch for the MCP SDK's Streamable HTTP client that connects only to
 * addresses allowed by SPEC 6.4 (judged again at every connection, to the
 * very address judged), counts every answer byte against the budget, and
 * records the first failure. Plain http is used only for a loopback address
 * admitted by COUNTERSIGN_ALLOW_LOOPBACK_URLS (local runs and tests).
 */
export function upstreamFetch(options: UpstreamFetchOptions | (() => UpstreamFetchOptions)) {
  const fixed = typeof options === "function" ? undefined : options;
  return async (input: string | URL, init: RequestInit = {}): Promise<Response> => {
    // A session shared by many calls reads the exchange state of the call it is serving now.
    const o = fixed ?? (options as () => UpstreamFetchOptions)();
    const fail = (f: UpstreamFailure) => {
      o.failure.first ??= f;
    };
    let target: ConnectTarget;
    try {
      target = await upstreamTarget(String(input), o.rules);
    } catch (err) {
      if (err instanceof AddressNotAllowedError) fail({ kind: "url_not_allowed", reason: err.reason });
      throw err;
    }
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((v, k) => (headers[k] = v));
    headers.host = target.url.host;
    const body = typeof init.body === "string" ? init.body : undefined;
    const plain = target.url.protocol === "http:";
    const request = plain ? httpRequest : httpsRequest;
    return new Promise<Response>((resolve, reject) => {
      const req = request(
        {
          host: target.address,
          family: target.family,
          port: target.port,
          agent: upstreamAgent(plain, o.ca),
          ...(plain ? {} : { servername: target.servername }),
          path: `${target.url.pathname}${target.url.search}`,
          method: init.method ?? "GET",
          headers,
          signal: o.signal,
        },
        (res) => {
          const counter = new Transform({
            transform(chunk: Buffer, _enc, cb) {
              o.budget.used += chunk.length;
              if (o.budget.used > o.budget.max) {
                fail({ kind: "too_large" });
                cb(new TooLarge("the upstream's answers exceed the budget"));
                o.abort?.();
              } else cb(null, chunk);
            },
          });
          res.on("error", (e) => counter.destroy(e));
          res.pipe(counter);
          const status = res.statusCode ?? 502;
          // Only the JSON-RPC POSTs count: a stateless server answers the SDK's optional GET stream with 405.
          if (status >= 400 && (init.method ?? "GET") === "POST") fail({ kind: "http", status });
          const declared = Number(res.headers["content-length"]);
          if (Number.isFinite(declared) && o.budget.used + declared > o.budget.max)
            fail({ kind: "too_large" });
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === "string") h.set(k, v);
          const empty = status === 204 || status === 304 || (init.method ?? "GET") === "HEAD";
          resolve(
            new Response(empty ? null : (Readable.toWeb(counter) as ReadableStream), { status, headers: h }),
          );
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
