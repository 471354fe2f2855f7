import type { FastifyInstance } from "fastify";
import { z } from "zod";
import {
  deliveryStates,
  webhookDeliveryAnswerSchema,
  webhookDeliveryListSchema,
} from "@countersign/protocol/wire";
import type { ApiContext } from "../../context.js";
import { decodeCursor, timeCursor, keysetPage, organizationOf, pageQuery, typed } from "../../http/shared.js";
import { deliveryJson } from "../delivery-json.js";
import { listDeliveries } from "../delivery-store.js";
import { endpointNotFound, readEndpoint } from "../endpoint-store.js";
import { redeliver } from "../redeliver.js";
import { sendTestEvent } from "../test-event.js";

const params = z.strictObject({ org_id: z.uuid(), webhook_id: z.uuid() });

/**
 * GET .../webhooks/<id>/deliveries, POST .../deliveries/<delivery_id>/redeliver, POST .../webhooks/<id>/test
 * (the two sends are operations of their own: redeliver.ts, test-event.ts).
 */
export async function webhookDeliveryRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);

  r.get(
    "/orgs/:org_id/webhooks/:webhook_id/deliveries",
    {
      schema: {
        params,
        querystring: z.strictObject({ ...pageQuery, state: z.enum(deliveryStates).optional() }),
        response: { 200: webhookDeliveryListSchema },
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const { limit, cursor, state } = request.query;
      if (!(await readEndpoint(ctx.pool, o.id, request.params.webhook_id))) throw endpointNotFound();
      const after = decodeCursor(cursor, timeCursor);
      const rows = await listDeliveries(ctx.pool, request.params.webhook_id, state ?? null, after, limit);
      return keysetPage(rows, limit, deliveryJson, (last) => [last.created_at.toISOString(), last.id]);
    },
  );

  r.post(
    "/orgs/:org_id/webhooks/:webhook_id/deliveries/:delivery_id/redeliver",
    {
      schema: {
        params: params.extend({ delivery_id: z.uuid() }),
        response: { 202: webhookDeliveryAnswerSchema },
      },
    },
    async (request, reply) => {
      const o = organizationOf(request);
      const { webhook_id, delivery_id } = request.params;
      const delivery = await redeliver(ctx.pool, {
        organizationId: o.id,
        endpointId: webhook_id,
        deliveryId: delivery_id,
      });
      return reply.code(202).send({ delivery: deliveryJson(delivery) });
    },
  );

  r.post(
    "/orgs/:org_id/webhooks/:webhook_id/test",
    { schema: { params, response: { 202: webhookDeliveryAnswerSchema } } },
    async (request, reply) => {
      const o = organizationOf(request);
      const { webhook_id } = request.params;
      const delivery = await sendTestEvent(ctx.pool, { organizationId: o.id, endpointId: webhook_id });
      return reply.code(202).send({ delivery: deliveryJson(delivery) });
    },
  );
}
