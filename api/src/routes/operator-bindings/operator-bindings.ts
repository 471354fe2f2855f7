import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction } from "@countersign/core/store";
import { actorOf, audit } from "../../audit/record.js";
import type { ApiContext } from "../../context.js";
import { isUniqueViolation, organizationOf, typed } from "../../http/shared.js";

interface BindingRow {
  id: string;
  username: string;
  role: string;
  allow_admin_changes: boolean;
  created_by: string | null;
  created_at: Date;
}
const bindingJson = (b: BindingRow) => ({ ...b, created_at: b.created_at.toISOString() });

/**
 * Operator bindings (DESIGN "Kubernetes"; not in SPEC 4.4): an owner binds a
 * Kubernetes ServiceAccount, as the cluster's TokenReview names it, to the
 * organization with a role below owner. The operator then calls the Cloud API
 * with its ServiceAccount token and acts with that role; with
 * `allow_admin_changes` (admin only) it may also make the changes SPEC 4.4
 * reserves for admins signed in (admin-signed-in.ts).
 */
export async function operatorBindingRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);
  const params = z.strictObject({ org_id: z.uuid() });
  r.get(
    "/orgs/:org_id/operator-bindings",
    { schema: { params, querystring: z.strictObject({}) } },
    async (request) => {
      const o = organizationOf(request);
      const { rows } = await ctx.pool.query<BindingRow>(
        "select id, username, role, allow_admin_changes, created_by, created_at from operator_bindings where organization_id = $1 order by created_at, id",
        [o.id],
      );
      return { items: rows.map(bindingJson), next_cursor: null };
    },
  );

  r.post(
    "/orgs/:org_id/operator-bindings",
    {
      schema: {
        params,
        body: z.strictObject({
          username: z
            .string()
            .max(300)
            .regex(
              /^system:serviceaccount:[a-z0-9]([-a-z0-9]*[a-z0-9])?:[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/,
              "system:serviceaccount:<namespace>:<name>",
            ),
          role: z.enum(["admin", "approver", "developer", "viewer"]),
          allow_admin_changes: z.boolean().default(false),
        }),
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
      const binding = await inTransaction(ctx.pool, async (db) => {
        let row: BindingRow;
        try {
          const { rows } = await db.query<BindingRow>(
            "insert into operator_bindings (organization_id, username, role, allow_admin_changes, created_by) values ($1, $2, $3, $4, $5) returning id, username, role, allow_admin_changes, created_by, created_at",
            [o.id, request.body.username, request.body.role, request.body.allow_admin_changes, s],
          );
          row = rows[0]!;
        } catch (err) {
          if (isUniqueViolation(err))
            throw new ServiceError("CONFLICT", "this ServiceAccount is already bound", {
              reason: "ALREADY_BOUND",
            });
          throw err;
        }
        await audit(db, {
          organizationId: o.id,
          action: "operator.bound",
          actor: actorOf(request.principal),
          target: { type: "operator", id: row.username },
          details: { role: row.role, allow_admin_changes: row.allow_admin_changes },
        });
        return row;
      });
      return reply.code(201).send({ binding: bindingJson(binding) });
    },
  );

  r.delete(
    "/orgs/:org_id/operator-bindings/:binding_id",
    { schema: { params: z.strictObject({ org_id: z.uuid(), binding_id: z.uuid() }) } },
    async (request, reply) => {
      const o = organizationOf(request);
      await inTransaction(ctx.pool, async (db) => {
        const { rows } = await db.query<{ username: string }>(
          "delete from operator_bindings where id = $1 and organization_id = $2 returning username",
          [request.params.binding_id, o.id],
        );
        if (!rows[0]) throw new ServiceError("NOT_FOUND", "binding not found");
        await audit(db, {
          organizationId: o.id,
          action: "operator.unbound",
          actor: actorOf(request.principal),
          target: { type: "operator", id: rows[0].username },
        });
      });
      return reply.code(204).send();
    },
  );
}
