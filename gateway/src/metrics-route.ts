import type { FastifyInstance } from "fastify";
import type { GatewayContext } from "./context.js";

/** GET /metrics in the Prometheus text format (DESIGN "Observability"). */
export async function metricsRoute(app: FastifyInstance, ctx: GatewayContext) {
  app.get("/metrics", async (_request, reply) => {
    reply.header("content-type", ctx.metrics.registry.contentType);
    return ctx.metrics.registry.metrics();
  });
}
