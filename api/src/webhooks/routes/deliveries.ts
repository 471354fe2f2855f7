import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction, type Queryable } from "@countersign/core/store";
import {
  deliveryStates,
  TEST_EVENT_TYPE,
  webhookDeliveryAnswerSchema,
  webhookDeliveryListSchema,
} from "@countersign/protocol/wire";
import type { ApiContext } from "../../context.js";
import { enforceLimits } from "../../rate-limits/counter.js";
import { decodeCursor, timeCursor, keysetPage, organizationOf, pageQuery, typed } from "../../http/shared.js";
import { deliveryJson } from "../delivery-json.js";
import {
  insertEndpointEvent,
  listDeliveries,
  lockDeliveryState,
  lockEndpointState,
  readDelivery,
  restartDelivery,
} from "../delivery-store.js";
import { readEndpoint } from "../endpoint-store.js";

const params = z.strictObject({ org_id: z.uuid(), webhook_id: z.uuid() });
const notFound = () => new ServiceError("NOT_FOUND", "webhook endpoint not found");

/** The endpoint, locked for the change; 404 when it is not this organization's. */
async function lockEndpoint(db: Queryable, orgId: string, id: string): Promise<{ enabled: boolean }> {
  const endpoint = await lockEndpointState(db, orgId, id);
  if (!endpoint) throw notFound();
  return endpoint;
}

function refuseDisabled(endpoint: { enabled: boolean }): void {
  if (!endpoint.enabled)
    throw new ServiceError("ENDPOINT_DISABLED", "the webhook endpoint is disabled; enable it first");
}

/** Redeliveries and test events share 5 per minute per endpoint; counted in the same transaction, so a refusal counts nothing. */
const countSend = (db: Queryable, endpointId: string) =>
  enforceLimits(db, [{ name: "webhookSendsPerEndpoint", subject: endpointId }]);

/** GET .../webhooks/<id>/deliveries, POST .../deliveries/<delivery_id>/redeliver, POST .../webhooks/<id>/test. */
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
      if (!(await readEndpoint(ctx.pool, o.id, request.params.webhook_id))) throw notFound();
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
      const delivery = await inTransaction(ctx.pool, async (db) => {
        const endpoint = await lockEndpoint(db, o.id, webhook_id);
        const state = await lockDeliveryState(db, webhook_id, delivery_id);
        if (!state) throw new ServiceError("NOT_FOUND", "delivery not found");
        refuseDisabled(endpoint);
        if (state !== "failed")
          throw new ServiceError(
            "INVALID_STATE",
            `only a failed delivery can be redelivered; this one is ${state}`,
          );
        await countSend(db, webhook_id);
        await restartDelivery(db, delivery_id);
        return readDelivery(db, delivery_id);
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
      const delivery = await inTransaction(ctx.pool, async (db) => {
        refuseDisabled(await lockEndpoint(db, o.id, webhook_id));
        await countSend(db, webhook_id);
        const id = await insertEndpointEvent(db, o.id, webhook_id, TEST_EVENT_TYPE, { webhook_id });
        return readDelivery(db, id);
      });
      return reply.code(202).send({ delivery: deliveryJson(delivery) });
    },
  );
}
