import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { quotas } from "@countersign/core/plans";
import { inTransaction } from "@countersign/core/store";
import { actorOf, audit } from "../../audit/record.js";
import type { ApiContext } from "../../context.js";
import { endWindowsForSettings } from "../../observe/windows.js";
import { ORGANIZATION_COLUMNS, organizationJson, type OrganizationRow } from "../../orgs/serialize.js";
import { nameSchema, organizationOf, typed } from "../../http/shared.js";

/** Settings of SPEC 2.1 only an owner may change; the others need owner or admin (the route's rule). */
const ownerOnly = ["observe_max_hours", "observe_live_opt_in", "data_retention_days"] as const;

const body = z
  .strictObject({
    name: nameSchema,
    approval_ttl_seconds: z.number().int().min(60).max(2_592_000),
    observe_max_hours: z.number().int().min(0).max(168),
    observe_live_opt_in: z.boolean(),
    agent_disclosure: z.enum(["none", "rule", "conditions"]),
    data_retention_days: z.number().int().min(1).max(3650).nullable(),
  })
  .partial();

/** PATCH /orgs/<org_id>: the organization settings table of SPEC 2.1. */
export async function organizationSettingsRoute(app: FastifyInstance, ctx: ApiContext) {
  typed(app).patch(
    "/orgs/:org_id",
    { schema: { params: z.strictObject({ org_id: z.uuid() }), body } },
    async (request) => {
      const o = organizationOf(request);
      const changes = Object.entries(request.body).filter(([, v]) => v !== undefined) as [
        keyof typeof request.body,
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
        const { rows: before } = await db.query<OrganizationRow>(
          `select ${ORGANIZATION_COLUMNS} from organizations where id = $1 for update`,
          [o.id],
        );
        if (changes.length === 0) return before[0]!;
        const sets = changes.map(([k], i) => `${k} = $${i + 2}`).join(", ");
        const { rows } = await db.query<OrganizationRow>(
          `update organizations set ${sets} where id = $1 returning ${ORGANIZATION_COLUMNS}`,
          [o.id, ...changes.map(([, v]) => v)],
        );
        const actor = actorOf(request.principal);
        await audit(db, {
          organizationId: o.id,
          action: "organization.updated",
          actor,
          target: { type: "organization", id: o.id },
          details: { fields: changes.map(([k]) => k) },
        });
        if (days !== undefined && days !== before[0]!.data_retention_days) {
          await audit(db, {
            organizationId: o.id,
            action: "organization.retention_changed",
            actor,
            target: { type: "organization", id: o.id },
            details: { from_days: before[0]!.data_retention_days, to_days: days },
          });
        }
        // SPEC 3.9: these changes end observe windows in the same transaction.
        const b = before[0]!;
        const a = rows[0]!;
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
