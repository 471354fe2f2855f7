import type { FastifyInstance } from "fastify";
import { cancellationSubmissionSchema } from "@countersign/protocol/wire";
import { actorOf } from "../audit/record.js";
import type { ApiContext } from "../context.js";
import { decodeCursor, timeCursor, keysetPage, organizationOf, typed, orgParams } from "../http/shared.js";
import { cancelProtectedAction } from "./cancel.js";
import { actionJson, actionListQuery, actionParams, actionResponses } from "./schemas.js";
import { listActions, readAction } from "./store.js";

/**
 * Protected actions (SPEC 2.6, 3.1; docs/evidence-api.md "Actions"): the
 * list with filters, one action, and cancellation by an admin with a
 * CANCELLATION signed by the organization principal (core/src/actions).
 */
export async function actionRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);

  r.get(
    "/orgs/:org_id/actions",
    {
      schema: {
        params: orgParams,
        querystring: actionListQuery,
        response: actionResponses.list,
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const { cursor, limit, ...filter } = request.query;
      const after = decodeCursor(cursor, timeCursor);
      const rows = await listActions(ctx.pool, o.id, { ...filter, after, limit: limit + 1 });
      return keysetPage(rows, limit, actionJson, (last) => [last.created_at.toISOString(), last.id]);
    },
  );

  r.get(
    "/orgs/:org_id/actions/:action_id",
    { schema: { params: actionParams, response: actionResponses.one } },
    async (request) => {
      const o = organizationOf(request);
      return { action: actionJson(await readAction(ctx.pool, o.id, request.params.action_id)) };
    },
  );

  r.post(
    "/orgs/:org_id/actions/:action_id/cancel",
    {
      schema: { params: actionParams, body: cancellationSubmissionSchema, response: actionResponses.cancel },
    },
    async (request) => {
      const o = organizationOf(request);
      const done = await cancelProtectedAction(ctx, {
        organizationId: o.id,
        actionId: request.params.action_id,
        cancellation: request.body.cancellation,
        actor: actorOf(request.principal),
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
