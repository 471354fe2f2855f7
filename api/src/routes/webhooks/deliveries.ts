import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction, type Queryable } from "@countersign/core/store";
import { TEST_EVENT_TYPE } from "@countersign/core/webhooks";
import type { ApiContext } from "../../context.js";
import { enforceLimits } from "../../rate-limits/counter.js";
import { decodeCursor, timeCursor, keysetPage, organizationOf, pageQuery, typed } from "../../http/shared.js";
import { DELIVERY_SELECT, deliveryJson, type DeliveryRow } from "./serialize.js";

const params = z.strictObject({ org_id: z.uuid(), webhook_id: z.uuid() });

/** The endpoint, locked for the change; 404 when it is not this organization's. */
async function lockEndpoint(
  db: Queryable,
  organizationId: string,
  id: string,
): Promise<{ enabled: boolean }> {
  const { rows } = await db.query<{ enabled: boolean }>(
    "select enabled from webhook_endpoints where id = $1 and organization_id = $2 for update",
    [id, organizationId],
  );
  if (!rows[0]) throw new ServiceError("NOT_FOUND", "webhook endpoint not found");
  return rows[0];
}

function refuseDisabled(endpoint: { enabled: boolean }): void {
  if (!endpoint.enabled)
    throw new ServiceError("ENDPOINT_DISABLED", "the webhook endpoint is disabled; enable it first");
}

/** Redeliveries and test events share 5 per minute per endpoint (SPEC 6.4, 8.1); counted in the same transaction, so a refusal counts nothing. */
const countSend = (db: Queryable, endpointId: string) =>
  enforceLimits(db, [{ name: "webhookSendsPerEndpoint", subject: endpointId }]);

async function readDelivery(db: Queryable, id: string): Promise<DeliveryRow> {
  const { rows } = await db.query<DeliveryRow>(`${DELIVERY_SELECT} where d.id = $1`, [id]);
  return rows[0]!;
}

/** GET .../webhooks/<id>/deliveries, POST .../deliveries/<delivery_id>/redeliver, POST .../webhooks/<id>/test (SPEC 3.7, 6.4). */
export async function webhookDeliveryRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);

  r.get(
    "/orgs/:org_id/webhooks/:webhook_id/deliveries",
    {
      schema: {
        params,
        querystring: z.strictObject({
          ...pageQuery,
          state: z.enum(["pending", "delivered", "failed"]).optional(),
        }),
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const { limit, cursor, state } = request.query;
      const found = await ctx.pool.query(
        "select 1 from webhook_endpoints where id = $1 and organization_id = $2",
        [request.params.webhook_id, o.id],
      );
      if (!found.rows.length) throw new ServiceError("NOT_FOUND", "webhook endpoint not found");
      const after = decodeCursor(cursor, timeCursor);
      const { rows } = await ctx.pool.query<DeliveryRow>(
        `${DELIVERY_SELECT}
          where d.endpoint_id = $1 and ($2::text is null or d.state = $2)
            and ($3::timestamptz is null or (d.created_at, d.id) < ($3::timestamptz, $4::uuid))
          order by d.created_at desc, d.id desc limit $5`,
        [request.params.webhook_id, state ?? null, after?.[0] ?? null, after?.[1] ?? null, limit + 1],
      );
      return keysetPage(rows, limit, deliveryJson, (last) => [last.created_at.toISOString(), last.id]);
    },
  );

  r.post(
    "/orgs/:org_id/webhooks/:webhook_id/deliveries/:delivery_id/redeliver",
    { schema: { params: params.extend({ delivery_id: z.uuid() }) } },
    async (request, reply) => {
      const o = organizationOf(request);
      const { webhook_id, delivery_id } = request.params;
      const delivery = await inTransaction(ctx.pool, async (db) => {
        const endpoint = await lockEndpoint(db, o.id, webhook_id);
        const { rows } = await db.query<{ state: string }>(
          "select state from webhook_deliveries where id = $1 and endpoint_id = $2 for update",
          [delivery_id, webhook_id],
        );
        if (!rows[0]) throw new ServiceError("NOT_FOUND", "delivery not found");
        refuseDisabled(endpoint);
        if (rows[0].state !== "failed")
          throw new ServiceError(
            "INVALID_STATE",
            `only a failed delivery can be redelivered; this one is ${rows[0].state}`,
          );
        await countSend(db, webhook_id);
        // Same event, delivery id and body; 8 new attempts, the first one now (SPEC 3.7).
        await db.query(
          "update webhook_deliveries set state = 'pending', round_attempts = 0, next_attempt_at = now(), failed_at = null, lease_token = null, lease_until = null where id = $1",
          [delivery_id],
        );
        return readDelivery(db, delivery_id);
      });
      return reply.code(202).send({ delivery: deliveryJson(delivery) });
    },
  );

  r.post("/orgs/:org_id/webhooks/:webhook_id/test", { schema: { params } }, async (request, reply) => {
    const o = organizationOf(request);
    const { webhook_id } = request.params;
    const delivery = await inTransaction(ctx.pool, async (db) => {
      refuseDisabled(await lockEndpoint(db, o.id, webhook_id));
      await countSend(db, webhook_id);
      // Addressed to this endpoint only: the events trigger creates just its delivery.
      const { rows } = await db.query<{ id: string }>(
        `insert into events (organization_id, type, data, webhook_endpoint_id) values ($1, $2, $3, $4) returning id`,
        [o.id, TEST_EVENT_TYPE, { webhook_id }, webhook_id],
      );
      const { rows: d } = await db.query<{ id: string }>(
        "select id from webhook_deliveries where event_id = $1",
        [rows[0]!.id],
      );
      return readDelivery(db, d[0]!.id);
    });
    return reply.code(202).send({ delivery: deliveryJson(delivery) });
  });
}
