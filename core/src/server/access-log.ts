import { LogController, type FastifyReply, type FastifyRequest } from "fastify";

/**
 * One access line per request, written when it ends, with its method, path,
 * status and time: fastify's default is two (`incoming request` and `request
 * completed`), and the first holds no fact the second lacks. On the Gateway,
 * where every decision is a request, logging at the default level (`info`)
 * cost 0.05–0.065 ms of CPU per decision with two lines, about a tenth.
 * Error lines stay fastify's own.
 */
export class AccessLog extends LogController {
  constructor() {
    super({ requestIdLogLabel: "request_id" });
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, "request errored");
    else reply.log.info(line, "request completed");
  }

  // fastify's own words name the URL with its query string, which may hold an e-mail link's token.
  override routeNotFound(request: FastifyRequest): void {
    request.log.info({ req: request }, "route not found");
  }
}
