import type { FastifyInstance } from "fastify";
import { ServiceError } from "@countersign/protocol/errors";
import { quotas } from "@countersign/core/plans";
import { organizationAnswerSchema, organizationSettingsSchema as body } from "@countersign/protocol/wire";
import { actorOf } from "../../audit/record.js";
import type { ApiContext } from "../../context.js";
import { organizationJson } from "../organization-json.js";
import { organizationOf, typed, orgParams } from "../../http/shared.js";
import type { SettingsColumn } from "../store.js";
import { updateOrganizationSettings } from "../update-settings.js";

/** Settings only an owner may change; the others need owner or admin (the route's rule). */
const ownerOnly = ["observe_max_hours", "observe_live_opt_in", "data_retention_days"] as const;

/** PATCH /orgs/<org_id>: the organization settings. */
export async function organizationSettingsRoute(app: FastifyInstance, ctx: ApiContext) {
  typed(app).patch(
    "/orgs/:org_id",
    {
      schema: {
        params: orgParams,
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
      const row = await updateOrganizationSettings(ctx.pool, {
        organizationId: o.id,
        changes,
        retentionDays: days,
        endedBy: request.principal.kind === "session" ? request.principal.userId : null,
        actor: actorOf(request.principal),
      });
      return { organization: organizationJson(row, o.plan, o.role) };
    },
  );
}
