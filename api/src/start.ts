import { listeningUrl, type Logger, type RunningServer } from "@countersign/core/server";
import type { Pool } from "@countersign/core/store";
import type { CloudApiOptions } from "./context.js";
import { buildApiServer } from "./server.js";

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
  return {
    app,
    url: listeningUrl(app, opts.host),
    stop: async () => {
      await app.lifecycle.drain(opts.shutdownGraceSeconds * 1000);
      opts.cloud?.mailer.close?.();
    },
  };
}

export type { RunningServer };
