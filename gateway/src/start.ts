import { listeningUrl, type Logger, type RunningServer } from "@countersign/core/server";
import type { Pool } from "@countersign/core/store";
import { buildGatewayServer } from "./server.js";

export async function startGateway(opts: {
  pool: Pool;
  logger: Logger;
  host: string;
  port: number;
  shutdownGraceSeconds: number;
}): Promise<RunningServer> {
  const app = buildGatewayServer({ pool: opts.pool, logger: opts.logger });
  await app.listen({ host: opts.host, port: opts.port, listenTextResolver: (a) => `gateway listening on ${a}` });
  return { app, url: listeningUrl(app, opts.host), stop: () => app.lifecycle.drain(opts.shutdownGraceSeconds * 1000) };
}
export type { RunningServer };
