import type { FastifyInstance } from "fastify";
import type { Logger } from "@countersign/core/server";
import type { Pool } from "@countersign/core/store";
import { buildGatewayServer } from "./server.js";

export interface RunningGateway {
  app: FastifyInstance;
  url: string;
  stop(): Promise<void>;
}

export async function startGateway(opts: {
  pool: Pool;
  logger: Logger;
  host: string;
  port: number;
  shutdownGraceSeconds: number;
}): Promise<RunningGateway> {
  const app = buildGatewayServer({ pool: opts.pool, logger: opts.logger });
  await app.listen({ host: opts.host, port: opts.port, listenTextResolver: (a) => `gateway listening on ${a}` });
  const addr = app.server.address();
  const port = typeof addr === "object" && addr ? addr.port : opts.port;
  const host = opts.host === "0.0.0.0" || opts.host === "::" ? "127.0.0.1" : opts.host;
  return { app, url: `http://${host}:${port}`, stop: () => app.lifecycle.drain(opts.shutdownGraceSeconds * 1000) };
}
