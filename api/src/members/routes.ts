import type { FastifyInstance } from "fastify";
import { z } from "zod";
import {
  memberAnswerSchema,
  memberListSchema,
  memberPatchSchema,
  noContentSchema,
} from "@countersign/protocol/wire";
import { actorOf } from "../audit/record.js";
import type { ApiContext } from "../context.js";
import { organizationOf, typed, orgParams } from "../http/shared.js";
import { changeMemberRole } from "./change-role.js";
import { removeMember } from "./remove.js";
import { listMembers } from "./store.js";

const params = z.strictObject({ org_id: z.uuid(), user_id: z.uuid() });

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
        params: orgParams,
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
      const member = await changeMemberRole(ctx.pool, {
        organizationId: o.id,
        userId: request.params.user_id.toLowerCase(),
        role: request.body.role,
        callerRole: o.role,
        actor: actorOf(request.principal),
      });
      return { member };
    },
  );

  r.delete(
    "/orgs/:org_id/members/:user_id",
    { schema: { params, response: { 204: noContentSchema } } },
    async (request, reply) => {
      const o = organizationOf(request);
      const target = request.params.user_id.toLowerCase();
      const p = request.principal;
      await removeMember(ctx.pool, {
        organizationId: o.id,
        userId: target,
        self: p.kind === "session" && p.userId === target,
        callerRole: o.role,
        actor: actorOf(p),
      });
      return reply.code(204).send();
    },
  );
}
