import type { FastifyError, FastifyInstance } from "fastify";
import { createServer, type Logger } from "@countersign/core/server";
import { databaseReadiness, type Pool } from "@countersign/core/store";
import { edgeRefusal, gatewayNotFound, isMcp, rpcError } from "./http/edge.js";
import { refuse } from "./authorize/answers.js";
import { isRequestTextError } from "@countersign/core/server";
import { jsonRpcErrors } from "@countersign/protocol/errors";
import { sendUnavailable } from "./http/unavailable.js";

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
    unreadableRequestBody: (detail) => ({ allowed: false, status: "invalid_request", code: "INVALID_REQUEST", detail }),
  });
  // Paths the Gateway does not serve, and errors outside its two endpoints, in the same shapes.
  app.setNotFoundHandler(gatewayNotFound);
  app.setErrorHandler(async (err: FastifyError, request, reply) => {
    const edge = edgeRefusal(err, request, reply);
    if (edge) return edge;
    if (isRequestTextError(err)) {
      return isMcp(request) ? rpcError(reply, 400, jsonRpcErrors.INVALID_REQUEST, err.detail) : refuse(reply, 400, "INVALID_REQUEST", err.detail);
    }
    request.log.error({ err }, "request failed");
    return isMcp(request)
      ? rpcError(reply, 500, jsonRpcErrors.INTERNAL_ERROR, `internal error; request id ${request.id}`)
      : refuse(reply, 500, "GATEWAY_ERROR", `internal error; request id ${request.id}`);
  });
  if (opts.routes) app.register(opts.routes);
  return app;
}
