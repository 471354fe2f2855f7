import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { quotas } from "@countersign/core/plans";
import { overviewSchema, usageSchema } from "@countersign/protocol/wire";
import type { ApiContext } from "../context.js";
import { seatsTaken } from "../invitations/store.js";
import { organizationOf, typed, orgParams } from "../http/shared.js";
import {
  decisionsByDay,
  monthlyActions,
  overviewCounts,
  resourceCounts,
  type OverviewCount,
} from "./store.js";

const DAY_MS = 86_400_000;
const params = orgParams;

/**
 * Overview and usage (docs/evidence-api.md "Overview and usage"). Usage reads the monthly counters the Gateway increments on
 * each new decision, so a repeat with the same idempotency key never counts.
 */
export async function overviewRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);
  const now = () => ctx.evidence?.now?.() ?? new Date();

  r.get(
    "/orgs/:org_id/overview",
    {
      schema: {
        params,
        querystring: z.strictObject({ days: z.coerce.number().int().min(1).max(365).default(30) }),
        response: { 200: overviewSchema },
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const to = now();
      const from = new Date(to.getTime() - request.query.days * DAY_MS);
      const rows = await overviewCounts(ctx.pool, o.id, from, to);
      const group = (kind: OverviewCount["kind"]): Record<string, number> =>
        Object.fromEntries(rows.filter((x) => x.kind === kind && x.key !== null).map((x) => [x.key!, x.n]));
      const single = (kind: OverviewCount["kind"]) => rows.find((x) => x.kind === kind)?.n ?? 0;
      const byStatus = group("status");
      return {
        period: { days: request.query.days, from: from.toISOString(), to: to.toISOString() },
        actions: {
          total: Object.values(byStatus).reduce((a, b) => a + b, 0),
          by_status: byStatus,
          by_policy_effect: group("effect"),
          by_environment: group("environment"),
          by_day: await decisionsByDay(ctx.pool, o.id, from, to),
        },
        receipts: { by_outcome: group("outcome") },
        approvals: { pending: single("pending_approvals") },
        agents: { active: single("active_agents") },
      };
    },
  );

  r.get(
    "/orgs/:org_id/usage",
    {
      schema: {
        params,
        querystring: z.strictObject({ months: z.coerce.number().int().min(1).max(24).default(12) }),
        response: { 200: usageSchema },
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const q = quotas[o.plan];
      const current = now();
      const first = new Date(
        Date.UTC(current.getUTCFullYear(), current.getUTCMonth() - (request.query.months - 1), 1),
      );
      const byMonth = await monthlyActions(ctx.pool, o.id, first);
      const list = Array.from({ length: request.query.months }, (_, i) => {
        const m = new Date(Date.UTC(current.getUTCFullYear(), current.getUTCMonth() - i, 1))
          .toISOString()
          .slice(0, 7);
        return { month: m, protected_actions: byMonth.get(m) ?? 0 };
      });
      const counts = await resourceCounts(ctx.pool, o.id);
      const members = await seatsTaken(ctx.pool, o.id);
      const figure = (used: number, limit: number | null) => ({ used, limit });
      return {
        plan: o.plan,
        month: list[0]!.month,
        protected_actions: figure(list[0]!.protected_actions, q.protectedActionsPerMonth),
        months: list,
        members: figure(members, q.members),
        api_keys: figure(counts.api_keys, q.apiKeys),
        webhook_endpoints: figure(counts.webhook_endpoints, q.webhookEndpoints),
        agents: figure(counts.agents, q.agents),
        mcp_servers: figure(counts.mcp_servers, q.mcpServers),
        tools: figure(counts.tools, q.tools),
        policies: figure(counts.policies, q.policies),
        retention_days: q.retentionDays,
      };
    },
  );
}
