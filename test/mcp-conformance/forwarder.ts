/**
 * A loopback forwarder passing every request through as sent (method, path,
 * every header, Host and Origin included, the body) and the answer as it
 * streams (SSE included), with headers of its own added. Two uses here:
 * - the bearer proxy: the conformance suite's server mode has no option for
 *   credentials and the Gateway wants its key on every request, so the proxy
 *   adds `Authorization: Bearer <key>` (in turns over several keys of the
 *   agent: the suite sends its scenarios faster than one key's bucket of
 *   SPEC 8.2 lets through, 120 at once and 20 a second);
 * - a TLS front for the conformance upstream (upstream.ts), which serves
 *   plain http: the Cloud API registers only https MCP servers (SPEC 6.4), so
 *   the test's CA issues the certificate the Gateway and the Cloud API are
 *   told to trust.
 */
import {
  createServer as createHttpServer,
  request,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";

export interface Forwarder {
  /** Its origin: http(s)://127.0.0.1:port. */
  url: string;
  close(): Promise<void>;
}

export async function startForwarder(
  target: string,
  opts: {
    /** Headers added to each request (a function: chosen per request). */
    headers?: Record<string, string> | (() => Record<string, string>);
    tls?: { key: string; cert: string };
  } = {},
): Promise<Forwarder> {
  const to = new URL(target);
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const upstream = request(
      {
        host: to.hostname,
        port: to.port,
        method: req.method,
        path: req.url,
        headers: {
          ...req.headers,
          ...(typeof opts.headers === "function" ? opts.headers() : opts.headers),
        },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  };
  const server = opts.tls ? createHttpsServer(opts.tls, forward) : createHttpServer(forward);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${opts.tls ? "https" : "http"}://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
