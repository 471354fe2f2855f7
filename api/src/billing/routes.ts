import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { quotas } from "@countersign/core/plans";
import { billingSchema, errorBodySchema } from "@countersign/protocol/wire";
import type { ApiContext } from "../context.js";
import { organizationOf, typed } from "../http/shared.js";

/**
 * Billing. A self-hosted installation has no billing
 * provider: GET reports `configured` false with the plan in effect, and
 * checkout and portal answer 503 without Retry-After (plans cannot be bought here).
 */
export async function billingRoutes(app: FastifyInstance, _ctx: ApiContext) {
  const r = typed(app);
  const params = z.strictObject({ org_id: z.uuid() });
  r.get(
    "/orgs/:org_id/billing",
    { schema: { params, querystring: z.strictObject({}), response: { 200: billingSchema } } },
    async (request) => {
      const o = organizationOf(request);
      const q = quotas[o.plan];
      return {
        configured: false,
        plan: o.plan,
        subscription: null,
        quotas: {
          protected_actions_per_month: q.protectedActionsPerMonth,
          members: q.members,
          api_keys: q.apiKeys,
          webhook_endpoints: q.webhookEndpoints,
          agents: q.agents,
          mcp_servers: q.mcpServers,
          tools: q.tools,
          policies: q.policies,
          retention_days: q.retentionDays,
        },
      };
    },
  );
  const unconfigured = async () => {
    throw new ServiceError("SERVICE_UNAVAILABLE", "plans cannot be bought in this installation");
  };
  // Both only ever refuse: their one answer is the error body.
  r.post(
    "/orgs/:org_id/billing/checkout",
    { schema: { params, response: { 503: errorBodySchema } } },
    unconfigured,
  );
  r.post(
    "/orgs/:org_id/billing/portal",
    { schema: { params, response: { 503: errorBodySchema } } },
    unconfigured,
  );
}
