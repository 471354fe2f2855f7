import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { health } from "./health.js";
import { lifecycle } from "./lifecycle.js";
import { requestIdOf } from "./request-id.js";
import { requestText } from "./request-text.js";

export interface ServerOptions {
  logger: FastifyBaseLogger;
  /** Largest accepted body in bytes (SPEC 8.3: 1 MiB for both servers). */
  bodyLimit: number;
  readiness: () => Promise<string | undefined>;
  refuseWhileDraining: (request: FastifyRequest, reply: FastifyReply) => FastifyReply;
  /**
   * The answer to a URL the router cannot even read (invalid percent-encoding,
   * a path parameter over 100 characters): no hook has run, so this sets every
   * header the server's answers carry.
   */
  refuseMalformedUrl: (request: FastifyRequest, reply: FastifyReply) => FastifyReply;
}

/**
 * The fastify instance every Countersign server starts from: request ids on
 * every response and log line, health probes, graceful drain, the text rule
 * on every body, path and query string (request-text.ts). Servers add
 * their own conventions (api/src/http, gateway/src/http) on top.
 */
export function createServer(opts: ServerOptions): FastifyInstance {
  const app = Fastify({
    loggerInstance: opts.logger,
    genReqId: requestIdOf,
    requestIdHeader: false,
    logController: new LogController({ requestIdLogLabel: "request_id" }),
    bodyLimit: opts.bodyLimit,
    // Our lifecycle answers requests that arrive while closing, in the server's
    // own error shape; fastify's generic 503 would not be.
    return503OnClosing: false,
    forceCloseConnections: "idle",
    frameworkErrors: (_err, request, reply) => opts.refuseMalformedUrl(request, reply.header("x-request-id", request.id)),
  }) as unknown as FastifyInstance;
  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });
  app.register(lifecycle, { refuseWhileDraining: opts.refuseWhileDraining });
  app.register(health, { readiness: opts.readiness });
  app.register(requestText);
  return app;
}
