import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { quotas } from "@countersign/core/plans";
import { inTransaction } from "@countersign/core/store";
import { organizationAnswerSchema, organizationSettingsSchema as body } from "@countersign/protocol/wire";
import { actorOf, audit } from "../../audit/record.js";
import type { ApiContext } from "../../context.js";
import { endWindowsForSettings } from "../../observe/windows.js";
import { organizationJson } from "../organization-json.js";
import { organizationOf, typed } from "../../http/shared.js";
import { readOrganization, updateSettings, type SettingsColumn } from "../store.js";

/** Settings only an owner may change; the others need owner or admin (the route's rule). */
const ownerOnly = ["observe_max_hours", "observe_live_opt_in", "data_retention_days"] as const;

/** PATCH /orgs/<org_id>: the organization settings. */
export async function organizationSettingsRoute(app: FastifyInstance, ctx: ApiContext) {
  typed(app).patch(
    "/orgs/:org_id",
    {
      schema: {
        params: z.strictObject({ org_id: z.uuid() }),
        body,
        response: { 200: organizationAnswerSchema },
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const changes = Object.entries(request.body).filter(([, v]) => v !== undefined) as [
        SettingsColumn,
        unknown,
      ][];
      if (o.role !== "owner" && changes.some(([k]) => (ownerOnly as readonly string[]).includes(k))) {
        throw new ServiceError(
          "OWNER_REQUIRED",
          "observe settings and data retention are the owner's to change",
        );
      }
      const planDays = quotas[o.plan].retentionDays;
      const days = request.body.data_retention_days;
      if (days !== undefined && days !== null && planDays !== null && days > planDays) {
        throw new ServiceError(
          "INVALID_INPUT",
          `data_retention_days may not exceed the plan's ${planDays} days`,
          {
            issues: [{ path: "data_retention_days", code: "too_big", message: `at most ${planDays}` }],
          },
        );
      }
      const row = await inTransaction(ctx.pool, async (db) => {
        const b = await readOrganization(db, o.id, true);
        if (changes.length === 0) return b;
        const a = await updateSettings(db, o.id, changes);
        const actor = actorOf(request.principal);
        await audit(db, {
          organizationId: o.id,
          action: "organization.updated",
          actor,
          target: { type: "organization", id: o.id },
          details: { fields: changes.map(([k]) => k) },
        });
        if (days !== undefined && days !== b.data_retention_days) {
          await audit(db, {
            organizationId: o.id,
            action: "organization.retention_changed",
            actor,
            target: { type: "organization", id: o.id },
            details: { from_days: b.data_retention_days, to_days: days },
          });
        }
        // These changes end observe windows in the same transaction.
        await endWindowsForSettings(db, {
          organizationId: o.id,
          now: new Date(),
          actor,
          endedBy: request.principal.kind === "session" ? request.principal.userId : null,
          before: { maxHours: b.observe_max_hours, liveOptIn: !!b.observe_live_opt_in },
          after: { maxHours: a.observe_max_hours, liveOptIn: !!a.observe_live_opt_in },
        });
        return a;
      });
      return { organization: organizationJson(row, o.plan, o.role) };
    },
  );
}
