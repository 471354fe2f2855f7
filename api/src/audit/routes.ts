import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { auditPageSchema, type AuditEntry } from "@countersign/protocol/wire";
import type { ApiContext } from "../context.js";
import { decodeCursor, keysetPage, organizationOf, pageQuery, typed, orgParams } from "../http/shared.js";
import { listAudit, type AuditRow } from "./store.js";

const entryJson = (e: AuditRow): AuditEntry => ({
  id: e.id,
  action: e.action,
  actor: { type: e.actor_type, id: e.actor_id, label: e.actor_label },
  target: e.target_type ? { type: e.target_type, id: e.target_id } : null,
  details: e.details,
  created_at: e.created_at.toISOString(),
});

/** GET /orgs/<org_id>/audit (Admins): newest first, paged, optionally one action. */
export async function auditRoute(app: FastifyInstance, ctx: ApiContext) {
  typed(app).get(
    "/orgs/:org_id/audit",
    {
      schema: {
        params: orgParams,
        querystring: z.strictObject({ ...pageQuery, action: z.string().min(1).max(100).optional() }),
        response: { 200: auditPageSchema },
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const { limit, cursor, action } = request.query;
      const before = decodeCursor(cursor, z.string().regex(/^\d{1,18}$/));
      const rows = await listAudit(ctx.pool, o.id, action ?? null, before ?? null, limit);
      return keysetPage(rows, limit, entryJson, (last) => last.id);
    },
  );
}
