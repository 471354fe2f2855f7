import type { FastifyInstance } from "fastify";
import { createServer, type Logger } from "@countersign/core/server";
import { databaseReadiness, type Pool } from "@countersign/core/store";
import type { AuthorizeRefusal } from "@countersign/protocol/wire";
import { gatewayErrors, gatewayNotFound } from "./http/edge.js";
import { sendUnavailable } from "./http/unavailable.js";
import { openApiRoute } from "./openapi/route.js";

const ONE_MIB = 1024 * 1024;

export interface GatewayServerOptions {
  pool: Pool;
  logger: Logger;
  /** Registers /v1/authorize and /mcp; later issues add them here. */
  routes?: (app: FastifyInstance) => Promise<void>;
}

export function buildGatewayServer(opts: GatewayServerOptions): FastifyInstance {
  const app = createServer({
    logger: opts.logger,
    bodyLimit: ONE_MIB,
    readiness: databaseReadiness(opts.pool),
    refuseWhileDraining: (request, reply) => sendUnavailable(request, reply, "GATEWAY_SHUTTING_DOWN"),
    refuseMalformedUrl: gatewayNotFound,
    // No URL was read: the shape of /v1/authorize, whose callers may read only `allowed`.
    unreadableRequestBody: (detail): AuthorizeRefusal => ({
      allowed: false,
      status: "invalid_request",
      code: "INVALID_REQUEST",
      detail,
    }),
  });
  // Paths the Gateway does not serve, and errors outside its two endpoints, in the same shapes.
  app.setNotFoundHandler(gatewayNotFound);
  app.setErrorHandler(gatewayErrors);
  // The document describing the server, whichever of its endpoints it serves (no key needed).
  app.register(openApiRoute);
  if (opts.routes) app.register(opts.routes);
  return app;
}
