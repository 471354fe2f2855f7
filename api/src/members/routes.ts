import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction } from "@countersign/core/store";
import {
  memberAnswerSchema,
  memberListSchema,
  memberPatchSchema,
  noContentSchema,
} from "@countersign/protocol/wire";
import {
  disableCreatorWebhooks,
  keysLostByRole,
  losesWebhooks,
  revokeCreatorAccess,
  revokeCreatorKeys,
} from "../access/creator-revocations.js";
import { actorOf, audit } from "../audit/record.js";
import type { ApiContext } from "../context.js";
import { isAdmin, organizationOf, typed } from "../http/shared.js";
import { listMembers, lockMembers, removeMember, setRole } from "./store.js";

const params = z.strictObject({ org_id: z.uuid(), user_id: z.uuid() });

const lastOwner = () => new ServiceError("LAST_OWNER", "the organization needs at least one owner");

/**
 * Members and roles: list; change a role (owner changes:
 * owner only; never the last owner); remove (yourself, others: admins, an
 * owner: owner only). A person who loses the right to keys loses the keys
 * (audited reasons).
 */
export async function memberRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);
  r.get(
    "/orgs/:org_id/members",
    {
      schema: {
        params: z.strictObject({ org_id: z.uuid() }),
        querystring: z.strictObject({}),
        response: { 200: memberListSchema },
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const rows = await listMembers(ctx.pool, o.id);
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
    { schema: { params, body: memberPatchSchema, response: { 200: memberAnswerSchema } } },
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
          await setRole(db, o.id, target, role);
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

  r.delete(
    "/orgs/:org_id/members/:user_id",
    { schema: { params, response: { 204: noContentSchema } } },
    async (request, reply) => {
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
        await removeMember(db, o.id, target);
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
    },
  );
}
