import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import {
  noContentSchema,
  operatorBindingAnswerSchema,
  operatorBindingCreateSchema,
  operatorBindingListSchema,
  type OperatorBinding,
} from "@countersign/protocol/wire";
import { actorOf } from "../audit/record.js";
import type { ApiContext } from "../context.js";
import { organizationOf, typed, orgParams } from "../http/shared.js";
import { bindOperator } from "./bind.js";
import { listBindings, type BindingRow } from "./store.js";
import { unbindOperator } from "./unbind.js";

const bindingJson = (b: BindingRow): OperatorBinding => ({ ...b, created_at: b.created_at.toISOString() });

/**
 * Operator bindings (the Kubernetes side of the design): an owner binds a
 * Kubernetes ServiceAccount, as the cluster's TokenReview names it, to the
 * organization with a role below owner. The operator then calls the Cloud API
 * with its ServiceAccount token and acts with that role; with
 * `allow_admin_changes` (admin only) it may also make the changes the route
 * table reserves for admins signed in (admin-signed-in.ts).
 */
export async function operatorBindingRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);
  const params = orgParams;
  r.get(
    "/orgs/:org_id/operator-bindings",
    { schema: { params, querystring: z.strictObject({}), response: { 200: operatorBindingListSchema } } },
    async (request) => {
      const o = organizationOf(request);
      const rows = await listBindings(ctx.pool, o.id);
      return { items: rows.map(bindingJson), next_cursor: null };
    },
  );

  r.post(
    "/orgs/:org_id/operator-bindings",
    {
      schema: {
        params,
        body: operatorBindingCreateSchema,
        response: { 201: operatorBindingAnswerSchema },
      },
    },
    async (request, reply) => {
      const o = organizationOf(request);
      const s = request.principal.kind === "session" ? request.principal.userId : null;
      if (request.body.allow_admin_changes && request.body.role !== "admin") {
        throw new ServiceError("VALIDATION_FAILED", "allow_admin_changes needs the admin role", {
          issues: [
            {
              path: "allow_admin_changes",
              code: "invalid_value",
              message: "only an operator bound as admin may make admin changes",
            },
          ],
        });
      }
      const binding = await bindOperator(ctx.pool, {
        organizationId: o.id,
        username: request.body.username,
        role: request.body.role,
        allowAdminChanges: request.body.allow_admin_changes,
        createdBy: s,
        actor: actorOf(request.principal),
      });
      return reply.code(201).send({ binding: bindingJson(binding) });
    },
  );

  r.delete(
    "/orgs/:org_id/operator-bindings/:binding_id",
    {
      schema: {
        params: z.strictObject({ org_id: z.uuid(), binding_id: z.uuid() }),
        response: { 204: noContentSchema },
      },
    },
    async (request, reply) => {
      const o = organizationOf(request);
      await unbindOperator(ctx.pool, {
        organizationId: o.id,
        bindingId: request.params.binding_id,
        actor: actorOf(request.principal),
      });
      return reply.code(204).send();
    },
  );
}
