import type { FastifyInstance } from "fastify";
import { ServiceError } from "@countersign/core/errors";
import { createServer, type Logger } from "@countersign/core/server";
import { databaseReadiness, type Pool } from "@countersign/core/store";
import { cloudApiConventions } from "./http/conventions.js";
import { sendServiceError } from "./http/error-handler.js";


export const API_PREFIX = "/api/v1";
const ONE_MIB = 1024 * 1024;

export interface ApiServerOptions {
  pool: Pool;
  logger: Logger;
  /** Registers the routes under /api/v1; later issues add theirs here. */
  routes?: (api: FastifyInstance) => Promise<void>;
}

export function buildApiServer(opts: ApiServerOptions): FastifyInstance {
  const app = createServer({
    logger: opts.logger,
    bodyLimit: ONE_MIB,
    readiness: databaseReadiness(opts.pool),
    refuseWhileDraining: (_request, reply) =>
      sendServiceError(
        reply.header("connection", "close"),
        new ServiceError("SERVICE_UNAVAILABLE", "the server is shutting down; retry", undefined, { "retry-after": "5" }),
      ),
  });
  app.register(cloudApiConventions);
  app.register(
    async (api) => {
      if (opts.routes) await opts.routes(api);
    },
    { prefix: API_PREFIX },
  );
  return app;
}
