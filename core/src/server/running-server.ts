import type { FastifyInstance } from "fastify";

/** A started server as its caller (a main, `make run`, a test) holds it. */
export interface RunningServer {
  app: FastifyInstance;
  /** Base URL the server listens on, e.g. http://127.0.0.1:8080. */
  url: string;
  /** Drain (refuse new requests, finish in-flight ones within the grace period) and close. */
  stop(): Promise<void>;
}

/** The URL a local client reaches a listening server on (a wildcard address becomes loopback). */
export function listeningUrl(app: FastifyInstance, host: string): string {
  const addr = app.server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  const reachable = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  return `http://${reachable}:${port}`;
}
