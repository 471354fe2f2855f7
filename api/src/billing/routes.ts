import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { quotas } from "@countersign/core/plans";
import {
  billingRedirectSchema,
  billingSchema,
  checkoutRequestSchema,
  errorBodySchema,
} from "@countersign/protocol/wire";
import type { ApiContext } from "../context.js";
import { organizationOf, typed, orgParams } from "../http/shared.js";
import { startCheckout } from "./checkout.js";
import { purchasablePlans } from "./config.js";
import { eventsRoute, unconfigured } from "./events-route.js";
import { openPortal } from "./portal.js";
import { BillingProvider } from "./provider.js";
import { subscriptionOf } from "./store.js";
import { putsOnPlan } from "./subscription-state.js";

/**
 * Billing (docs/billing.md). Without billing configured (self-hosted, `make run`): GET reports
 * `configured` false with the plan in effect, and checkout and portal answer 503 without
 * Retry-After (plans cannot be bought here). Configured: Stripe Checkout, the customer portal,
 * and the route Stripe pushes its events to.
 */
export async function billingRoutes(app: FastifyInstance, ctx: ApiContext) {
  const provider = ctx.billing ? new BillingProvider(ctx.billing) : undefined;
  const r = typed(app);
  const params = orgParams;
  const returnUrl = (orgId: string) => `${ctx.dashboardOrigin}/orgs/${orgId}/billing`;
  r.get(
    "/orgs/:org_id/billing",
    { schema: { params, querystring: z.strictObject({}), response: { 200: billingSchema } } },
    async (request) => {
      const o = organizationOf(request);
      const q = quotas[o.plan];
      const s = ctx.billing ? await subscriptionOf(ctx.pool, o.id) : undefined;
      return {
        configured: ctx.billing !== undefined,
        plan: o.plan,
        purchasable: purchasablePlans(ctx.billing),
        subscription:
          s && putsOnPlan(s.status)
            ? {
                status: s.status,
                plan: s.plan,
                current_period_end: s.current_period_end?.toISOString() ?? null,
              }
            : null,
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
  const refusals = {
    409: errorBodySchema,
    422: errorBodySchema,
    502: errorBodySchema,
    503: errorBodySchema,
  };
  r.post(
    "/orgs/:org_id/billing/checkout",
    {
      schema: { params, body: checkoutRequestSchema, response: { 201: billingRedirectSchema, ...refusals } },
      // Unconfigured is 503 whatever the body (before the body is validated).
      preValidation: async () => {
        if (!provider) throw unconfigured();
      },
    },
    async (request, reply) => {
      if (!provider || !ctx.billing) throw unconfigured();
      const o = organizationOf(request);
      const answer = await startCheckout({
        pool: ctx.pool,
        billing: ctx.billing,
        provider,
        organizationId: o.id,
        plan: request.body.plan,
        returnUrl: returnUrl(o.id),
      });
      return reply.code(201).send(answer);
    },
  );
  r.post(
    "/orgs/:org_id/billing/portal",
    { schema: { params, response: { 201: billingRedirectSchema, ...refusals } } },
    async (request, reply) => {
      if (!provider) throw unconfigured();
      const o = organizationOf(request);
      const answer = await openPortal({
        db: ctx.pool,
        provider,
        organizationId: o.id,
        returnUrl: returnUrl(o.id),
      });
      return reply.code(201).send(answer);
    },
  );
  await app.register(eventsRoute(provider), ctx);
}
