import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { cancelAction } from "@countersign/core/actions";
import { ServiceError } from "@countersign/protocol/errors";
import { actorOf, audit } from "../../audit/record.js";
import { ACTION_COLUMNS, ACTION_FROM, actionJson, type ActionRow } from "../../actions/action-json.js";
import type { ApiContext } from "../../context.js";
import { gatewayIdentityOf } from "../../evidence/options.js";
import {
  decodeCursor,
  timeCursor,
  keysetPage,
  organizationOf,
  pageQuery,
  typed,
  instantSchema,
} from "../../http/shared.js";

const statuses = [
  "denied",
  "pending_approval",
  "approved",
  "authorized",
  "executing",
  "succeeded",
  "failed",
  "rejected",
  "cancelled",
  "expired",
] as const;
const actionParams = z.strictObject({ org_id: z.uuid(), action_id: z.uuid() });

const listQuery = z.strictObject({
  ...pageQuery,
  status: z.enum(statuses).optional(),
  agent_id: z.uuid().optional(),
  tool: z.string().min(1).max(128).optional(),
  action: z.string().min(1).max(200).optional(),
  execution: z.enum(["gateway", "caller"]).optional(),
  environment: z.enum(["live", "test"]).optional(),
  policy_id: z.uuid().optional(),
  since: instantSchema.optional(),
  until: instantSchema.optional(),
});

async function readAction(
  db: { query: ApiContext["pool"]["query"] },
  organizationId: string,
  id: string,
): Promise<ActionRow> {
  const { rows } = await db.query<ActionRow>(
    `select ${ACTION_COLUMNS} from ${ACTION_FROM} where pa.id = $1 and pa.organization_id = $2`,
    [id, organizationId],
  );
  if (!rows[0]) throw new ServiceError("NOT_FOUND", "protected action not found");
  return rows[0];
}

/**
 * Protected actions (SPEC 2.6, 3.1; docs/evidence-api.md "Actions"): the
 * list with filters, one action, and cancellation by an admin with a
 * CANCELLATION signed by the organization principal (core/src/actions).
 */
export async function actionRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);

  r.get(
    "/orgs/:org_id/actions",
    { schema: { params: z.strictObject({ org_id: z.uuid() }), querystring: listQuery } },
    async (request) => {
      const o = organizationOf(request);
      const q = request.query;
      const after = decodeCursor(q.cursor, timeCursor);
      const { rows } = await ctx.pool.query<ActionRow>(
        `select ${ACTION_COLUMNS} from ${ACTION_FROM}
        where pa.organization_id = $1
          and ($2::text is null or pa.status = $2) and ($3::uuid is null or pa.agent_id = $3)
          and ($4::text is null or pa.tool_name = $4) and ($5::text is null or pa.action = $5)
          and ($6::text is null or pa.execution = $6) and ($7::text is null or pa.environment = $7)
          and ($8::uuid is null or pa.policy_id = $8)
          and ($9::timestamptz is null or pa.created_at >= $9) and ($10::timestamptz is null or pa.created_at < $10)
          and ($11::timestamptz is null or (pa.created_at, pa.id) < ($11::timestamptz, $12::uuid))
        order by pa.created_at desc, pa.id desc limit $13`,
        [
          o.id,
          q.status ?? null,
          q.agent_id ?? null,
          q.tool ?? null,
          q.action ?? null,
          q.execution ?? null,
          q.environment ?? null,
          q.policy_id ?? null,
          q.since ?? null,
          q.until ?? null,
          after?.[0] ?? null,
          after?.[1] ?? null,
          q.limit + 1,
        ],
      );
      return keysetPage(rows, q.limit, actionJson, (last) => [last.created_at.toISOString(), last.id]);
    },
  );

  r.get("/orgs/:org_id/actions/:action_id", { schema: { params: actionParams } }, async (request) => {
    const o = organizationOf(request);
    return { action: actionJson(await readAction(ctx.pool, o.id, request.params.action_id)) };
  });

  r.post(
    "/orgs/:org_id/actions/:action_id/cancel",
    {
      schema: {
        params: actionParams,
        body: z.strictObject({ cancellation: z.record(z.string(), z.unknown()) }),
      },
    },
    async (request) => {
      const o = organizationOf(request);
      // Found before the identity is needed, so a missing action is 404 even without a signing key.
      await readAction(ctx.pool, o.id, request.params.action_id);
      const identity = await gatewayIdentityOf(ctx.pool, ctx.evidence);
      const done = await cancelAction(ctx.pool, {
        organizationId: o.id,
        protectedActionId: request.params.action_id,
        object: request.body.cancellation,
        identity,
        alsoRecord: (db, c) =>
          audit(db, {
            organizationId: o.id,
            action: "action.cancelled",
            actor: actorOf(request.principal),
            target: { type: "protected_action", id: c.protectedActionId },
            details: { cancellation_object_id: c.cancellationObjectId, receipt_id: c.receipt.id },
          }),
      });
      return {
        action: actionJson(await readAction(ctx.pool, o.id, done.protectedActionId)),
        receipt: {
          id: done.receipt.id,
          receipt_object_id: done.receipt.receiptObjectId,
          outcome: done.receipt.outcome,
        },
      };
    },
  );
}
