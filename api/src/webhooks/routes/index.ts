import type { FastifyInstance } from "fastify";
import type { ApiContext } from "../../context.js";
import { webhookDeliveryRoutes } from "./deliveries.js";
import { webhookEndpointRoutes } from "./endpoints.js";

/** Webhook endpoints, their deliveries, redelivery and test events (docs/webhooks.md). */
export async function webhookRoutes(app: FastifyInstance, ctx: ApiContext) {
  await app.register(webhookEndpointRoutes, ctx);
  await app.register(webhookDeliveryRoutes, ctx);
}
