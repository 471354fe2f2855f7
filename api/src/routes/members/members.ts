import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction, type Queryable } from "@countersign/core/store";
import {
  disableCreatorWebhooks,
  keysLostByRole,
  losesWebhooks,
  revokeCreatorAccess,
  revokeCreatorKeys,
} from "../../access/creator-revocations.js";
import type { Role } from "../../access/types.js";
import { actorOf, audit } from "../../audit/record.js";
import type { ApiContext } from "../../context.js";
import { isAdmin, organizationOf, roleSchema, typed } from "../../http/shared.js";

const params = z.strictObject({ org_id: z.uuid(), user_id: z.uuid() });

/** Lock the organization's memberships and tell whether `userId` is its only owner. */
async function lockMembers(db: Queryable, orgId: string) {
  const { rows } = await db.query<{ user_id: string; role: Role }>(
    "select user_id, role from memberships where organization_id = $1 for update",
    [orgId],
  );
  return rows;
}

const lastOwner = () => new ServiceError("LAST_OWNER", "the organization needs at least one owner");

/**
 * Members and roles (SPEC 2.1, 4.4): list; change a role (owner changes:
 * owner only; never the last owner); remove (yourself, others: admins, an
 * owner: owner only). A person who loses the right to keys loses the keys
 * (SPEC 5.4, audited reasons).
 */
export async function memberRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);
  r.get(
    "/orgs/:org_id/members",
    { schema: { params: z.strictObject({ org_id: z.uuid() }), querystring: z.strictObject({}) } },
    async (request) => {
      const o = organizationOf(request);
      const { rows } = await ctx.pool.query<{
        user_id: string;
        email: string;
        name: string | null;
        role: Role;
        created_at: Date;
      }>(
        `select m.user_id, u.email, u.name, m.role, m.created_at from memberships m join users u on u.id = m.user_id
        where m.organization_id = $1 and u.deleted_at is null order by m.created_at, m.user_id`,
        [o.id],
      );
      // A fixed list (SPEC 4.3): every member, no further page.
      return {
        items: rows.map((m) => ({
          user_id: m.user_id,
          email: m.email,
          name: m.name,
          role: m.role,
          joined_at: m.created_at.toISOString(),
        })),
        next_cursor: null,
      };
    },
  );

  r.patch(
    "/orgs/:org_id/members/:user_id",
    { schema: { params, body: z.strictObject({ role: roleSchema }) } },
    async (request) => {
      const o = organizationOf(request);
      const target = request.params.user_id.toLowerCase();
      const role = request.body.role;
      return inTransaction(ctx.pool, async (db) => {
        const members = await lockMembers(db, o.id);
        const current = members.find((m) => m.user_id === target);
        if (!current) throw new ServiceError("NOT_FOUND", "member not found");
        if ((current.role === "owner" || role === "owner") && o.role !== "owner") {
          throw new ServiceError("OWNER_REQUIRED", "only an owner grants or changes the owner role");
        }
        if (
          current.role === "owner" &&
          role !== "owner" &&
          members.filter((m) => m.role === "owner").length === 1
        )
          throw lastOwner();
        if (current.role !== role) {
          await db.query("update memberships set role = $3 where organization_id = $1 and user_id = $2", [
            o.id,
            target,
            role,
          ]);
          await audit(db, {
            organizationId: o.id,
            action: "member.role_changed",
            actor: actorOf(request.principal),
            target: { type: "user", id: target },
            details: { from: current.role, to: role },
          });
          const lost = keysLostByRole(role);
          if (lost) await revokeCreatorKeys(db, o.id, target, "creator_lost_role", lost);
          if (losesWebhooks(role)) await disableCreatorWebhooks(db, o.id, target, "creator_lost_role");
        }
        return { member: { user_id: target, role } };
      });
    },
  );

  r.delete("/orgs/:org_id/members/:user_id", { schema: { params } }, async (request, reply) => {
    const o = organizationOf(request);
    const target = request.params.user_id.toLowerCase();
    const p = request.principal;
    const self = p.kind === "session" && p.userId === target;
    await inTransaction(ctx.pool, async (db) => {
      const members = await lockMembers(db, o.id);
      const current = members.find((m) => m.user_id === target);
      if (!current) throw new ServiceError("NOT_FOUND", "member not found");
      if (!self && !isAdmin(o.role))
        throw new ServiceError("FORBIDDEN", "only owners and admins remove others", {
          permission: "admins",
          role: o.role,
        });
      if (!self && current.role === "owner" && o.role !== "owner")
        throw new ServiceError("OWNER_REQUIRED", "only an owner removes an owner");
      if (current.role === "owner" && members.filter((m) => m.role === "owner").length === 1)
        throw lastOwner();
      await db.query("delete from memberships where organization_id = $1 and user_id = $2", [o.id, target]);
      await db.query(
        "update sessions set current_organization_id = null where user_id = $1 and current_organization_id = $2",
        [target, o.id],
      );
      await audit(db, {
        organizationId: o.id,
        action: self ? "member.left" : "member.removed",
        actor: actorOf(p),
        target: { type: "user", id: target },
        details: { role: current.role },
      });
      await revokeCreatorAccess(db, o.id, target, self ? "creator_left" : "creator_removed");
    });
    return reply.code(204).send();
  });
}
