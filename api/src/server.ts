import type { FastifyInstance } from "fastify";
import { ServiceError } from "@countersign/protocol/errors";
import { createServer, type Logger } from "@countersign/core/server";
import { databaseReadiness, type Pool } from "@countersign/core/store";
import { cloudApiConventions } from "./http/conventions.js";
import { refuseMalformedUrl, sendServiceError } from "./http/error-handler.js";
import { accessControl } from "./access/enforce.js";
import { kubernetesManagedBy } from "./kubernetes/managed-by.js";
import type { CloudApiOptions } from "./context.js";
import { API_PREFIX } from "./prefix.js";
import { accessRoutes } from "./routes/index.js";
import { dashboardFiles } from "./dashboard/serve.js";
import { openApiDocument } from "./openapi/document.js";
import { openApiRoute } from "./openapi/route.js";

export { API_PREFIX };
const ONE_MIB = 1024 * 1024;

export interface ApiServerOptions {
  pool: Pool;
  logger: Logger;
  /** Registers the routes under /api/v1; later issues add theirs here. */
  routes?: (api: FastifyInstance) => Promise<void>;
  /**
   * People and access: with these, every route under /api/v1 is
   * checked against the route table (api/src/access) and the account,
   * organization, member, invitation, key and audit routes are served.
   */
  cloud?: CloudApiOptions;
  /** Folder of the dashboard's build (dashboard/dist): served on every GET no route answers outside /api/v1. */
  dashboardDir?: string;
  /** COUNTERSIGN_GATEWAY_URL: the Gateway's public base URL, written into the dashboard's page. */
  gatewayUrl?: string;
}

export function buildApiServer(opts: ApiServerOptions): FastifyInstance {
  const app = createServer({
    logger: opts.logger,
    bodyLimit: ONE_MIB,
    readiness: databaseReadiness(opts.pool),
    refuseMalformedUrl,
    unreadableRequestBody: (message) => new ServiceError("INVALID_REQUEST", message).toBody(),
    refuseWhileDraining: (_request, reply) =>
      sendServiceError(
        reply.header("connection", "close"),
        new ServiceError("SERVICE_UNAVAILABLE", "the server is shutting down; retry", undefined, {
          "retry-after": "5",
        }),
      ),
  });
  app.register(cloudApiConventions, {
    dashboard: opts.dashboardDir
      ? dashboardFiles(opts.dashboardDir, API_PREFIX, { gatewayUrl: opts.gatewayUrl })
      : undefined,
  });
  // Before the routes: it collects them into the OpenAPI document (api/src/openapi).
  app.register(openApiDocument);
  app.register(
    async (api) => {
      if (opts.cloud) {
        const ctx = { ...opts.cloud, pool: opts.pool };
        await api.register(accessControl, ctx);
        await api.register(kubernetesManagedBy, ctx);
        await api.register(accessRoutes, ctx);
      }
      await api.register(openApiRoute);
      if (opts.routes) await opts.routes(api);
    },
    { prefix: API_PREFIX },
  );
  return app;
}
