import { randomUUID } from "node:crypto";
import type { Duplex } from "node:stream";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from "fastify";
import { AccessLog } from "./access-log.js";
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
  /**
   * The body of the answer to bytes that are not even an HTTP request (Node's
   * parser refused them, so there is no URL and no route): always HTTP 400.
   */
  unreadableRequestBody: (message: string) => unknown;
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
    logController: new AccessLog(),
    bodyLimit: opts.bodyLimit,
    // Our lifecycle answers requests that arrive while closing, in the server's
    // own error shape; fastify's generic 503 would not be.
    return503OnClosing: false,
    forceCloseConnections: "idle",
    frameworkErrors: (_err, request, reply) =>
      opts.refuseMalformedUrl(request, reply.header("x-request-id", request.id)),
    clientErrorHandler: (err: NodeJS.ErrnoException, socket) =>
      answerUnreadable(err, socket, opts.unreadableRequestBody),
  }) as unknown as FastifyInstance;
  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });
  app.register(lifecycle, { refuseWhileDraining: opts.refuseWhileDraining });
  app.register(health, { readiness: opts.readiness });
  app.register(requestText);
  return app;
}

/** Node's HTTP parser refused the bytes: the server's own error body, its headers, and the connection closed. */
function answerUnreadable(
  err: NodeJS.ErrnoException,
  socket: Duplex,
  bodyOf: (message: string) => unknown,
): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  const message =
    err.code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? "the request did not arrive in time"
      : err.code === "HPE_HEADER_OVERFLOW"
        ? "the request headers are too large"
        : "the request is not valid HTTP";
  const body = JSON.stringify(bodyOf(message));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${randomUUID()}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
