import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { ApiContext } from "../../context.js";
import { decodeCursor, keysetPage, organizationOf, pageQuery, typed } from "../../http/shared.js";

/** GET /orgs/<org_id>/audit (Admins): newest first, paged, optionally one action. */
export async function auditRoute(app: FastifyInstance, ctx: ApiContext) {
  typed(app).get(
    "/orgs/:org_id/audit",
    {
      schema: {
        params: z.strictObject({ org_id: z.uuid() }),
        querystring: z.strictObject({ ...pageQuery, action: z.string().min(1).max(100).optional() }),
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const { limit, cursor, action } = request.query;
      const before = decodeCursor(cursor, z.string().regex(/^\d{1,18}$/));
      const { rows } = await ctx.pool.query<{
        id: string;
        action: string;
        actor_type: string;
        actor_id: string | null;
        actor_label: string | null;
        target_type: string | null;
        target_id: string | null;
        details: Record<string, unknown>;
        created_at: Date;
      }>(
        `select id::text, action, actor_type, actor_id, actor_label, target_type, target_id, details, created_at
           from audit_log where organization_id = $1 and ($2::text is null or action = $2) and ($3::bigint is null or id < $3::bigint)
          order by id desc limit $4`,
        [o.id, action ?? null, before ?? null, limit + 1],
      );
      return keysetPage(
        rows,
        limit,
        (e) => ({
          id: e.id,
          action: e.action,
          actor: { type: e.actor_type, id: e.actor_id, label: e.actor_label },
          target: e.target_type ? { type: e.target_type, id: e.target_id } : null,
          details: e.details,
          created_at: e.created_at.toISOString(),
        }),
        (last) => last.id,
      );
    },
  );
}
