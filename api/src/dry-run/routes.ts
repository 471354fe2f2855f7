import type { FastifyInstance } from "fastify";
import { PolicyCache } from "@countersign/core/decision";
import { credentialSubject } from "../access/principal.js";
import type { ApiContext } from "../context.js";
import { dryRun } from "./dry-run.js";
import { enforceLimits, type Hit } from "../rate-limits/counter.js";
import { organizationOf, typed } from "../http/shared.js";
import { body, dryRunAnswer, params } from "./schemas.js";

/**
 * POST /orgs/<org_id>/agents/<agent_id>/dry-run (SPEC 4.5): the Gateway's
 * decision on current configuration, written and signed nowhere. 60 per
 * minute per credential and 600 per organization (SPEC 8.1).
 */
export async function dryRunRoute(app: FastifyInstance, ctx: ApiContext) {
  // Versions never change, so compiled documents are shared by every dry run of this process.
  const policies = new PolicyCache();
  typed(app).post(
    "/orgs/:org_id/agents/:agent_id/dry-run",
    { schema: { params, body, response: { 200: dryRunAnswer } } },
    async (request) => {
      const o = organizationOf(request);
      const hits: Hit[] = [{ name: "dryRunPerOrganization", subject: o.id }];
      const subject = credentialSubject(request.principal);
      if (subject) hits.push({ name: "dryRunPerCredential", subject });
      await enforceLimits(ctx.pool, hits);
      const b = request.body;
      const report = await dryRun(ctx.pool, policies, {
        organizationId: o.id,
        agentId: request.params.agent_id,
        tool: b.tool,
        arguments: b.arguments,
        environment: b.environment,
        idempotencyKey: b.idempotency_key ?? null,
        policyVersionId: b.policy_version_id ?? null,
        ignoreObserveWindow: b.ignore_observe_window,
        defaultPlan: ctx.defaultPlan,
        detailedExplanations: ctx.detailedExplanations,
        now: new Date(),
      });
      return { dry_run: report };
    },
  );
}
