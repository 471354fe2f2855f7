import type { FastifyInstance } from "fastify";
import type { Logger } from "@countersign/core/server";
import type { Pool } from "@countersign/core/store";
import type { CloudApiOptions } from "./context.js";
import { buildApiServer } from "./server.js";

export interface RunningServer {
  app: FastifyInstance;
  /** Base URL the server listens on, e.g. http://127.0.0.1:8080. */
  url: string;
  /** Drain (refuse new requests, finish in-flight ones within the grace period) and close. */
  stop(): Promise<void>;
}

export async function startApi(opts: {
  pool: Pool;
  logger: Logger;
  host: string;
  port: number;
  shutdownGraceSeconds: number;
  /** People and access (accounts, organizations, keys, audit); see buildApiServer. */
  cloud?: CloudApiOptions;
}): Promise<RunningServer> {
  const app = buildApiServer({ pool: opts.pool, logger: opts.logger, cloud: opts.cloud });
  await app.listen({ host: opts.host, port: opts.port, listenTextResolver: (a) => `api listening on ${a}` });
  const addr = app.server.address();
  const port = typeof addr === "object" && addr ? addr.port : opts.port;
  const host = opts.host === "0.0.0.0" || opts.host === "::" ? "127.0.0.1" : opts.host;
  return { app, url: `http://${host}:${port}`, stop: async () => {
      await app.lifecycle.drain(opts.shutdownGraceSeconds * 1000);
      opts.cloud?.mailer.close?.();
    },
  };
}
