import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { quotas } from "@countersign/core/plans";
import type { ApiContext } from "../../context.js";
import { seatsTaken } from "../invitations/invitations.js";
import { organizationOf, typed } from "../../http/shared.js";

const DAY_MS = 86_400_000;
const params = z.strictObject({ org_id: z.uuid() });

/**
 * Overview and usage (SPEC 4.4, 8.4, 8.6; docs/evidence-api.md "Overview
 * and usage"). Usage reads the monthly counters the Gateway increments on
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
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const to = now();
      const from = new Date(to.getTime() - request.query.days * DAY_MS);
      const { rows } = await ctx.pool.query<{ kind: string; key: string | null; n: number }>(
        `select 'status' as kind, status as key, count(*)::int as n from protected_actions
          where organization_id = $1 and created_at >= $2 and created_at < $3 group by status
         union all
         select 'effect', policy_effect, count(*)::int from protected_actions
          where organization_id = $1 and created_at >= $2 and created_at < $3 group by policy_effect
         union all
         select 'environment', environment, count(*)::int from protected_actions
          where organization_id = $1 and created_at >= $2 and created_at < $3 group by environment
         union all
         select 'outcome', outcome, count(*)::int from receipts
          where organization_id = $1 and created_at >= $2 and created_at < $3 group by outcome
         union all
         select 'pending_approvals', null, count(*)::int from approval_requests
          where organization_id = $1 and status = 'pending' and expires_at > $3
         union all
         select 'active_agents', null, count(*)::int from agents where organization_id = $1 and status = 'active'`,
        [o.id, from, to],
      );
      const group = (kind: string): Record<string, number> =>
        Object.fromEntries(rows.filter((x) => x.kind === kind && x.key !== null).map((x) => [x.key, x.n]));
      const single = (kind: string) => rows.find((x) => x.kind === kind)?.n ?? 0;
      const byStatus = group("status");
      return {
        period: { days: request.query.days, from: from.toISOString(), to: to.toISOString() },
        actions: {
          total: Object.values(byStatus).reduce((a, b) => a + b, 0),
          by_status: byStatus,
          by_policy_effect: group("effect"),
          by_environment: group("environment"),
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
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const q = quotas[o.plan];
      const current = now();
      const first = new Date(
        Date.UTC(current.getUTCFullYear(), current.getUTCMonth() - (request.query.months - 1), 1),
      );
      const { rows: months } = await ctx.pool.query<{ month: string; n: string }>(
        `select to_char(month, 'YYYY-MM') as month, sum(protected_actions)::bigint as n from usage_counters
          where organization_id = $1 and month >= $2::date group by month`,
        [o.id, first.toISOString().slice(0, 10)],
      );
      const byMonth = new Map(months.map((m) => [m.month, Number(m.n)]));
      const list = Array.from({ length: request.query.months }, (_, i) => {
        const m = new Date(Date.UTC(current.getUTCFullYear(), current.getUTCMonth() - i, 1))
          .toISOString()
          .slice(0, 7);
        return { month: m, protected_actions: byMonth.get(m) ?? 0 };
      });
      const { rows: c } = await ctx.pool.query<Record<string, number>>(
        `select (select count(*) from api_keys where organization_id = $1 and revoked_at is null)::int as api_keys,
                (select count(*) from webhook_endpoints where organization_id = $1)::int as webhook_endpoints,
                (select count(*) from agents where organization_id = $1)::int as agents,
                (select count(*) from mcp_servers where organization_id = $1)::int as mcp_servers,
                (select count(*) from tools where organization_id = $1)::int as tools,
                (select count(*) from policies where organization_id = $1)::int as policies`,
        [o.id],
      );
      const counts = c[0]!;
      const members = await seatsTaken(ctx.pool, o.id);
      const figure = (used: number, limit: number | null) => ({ used, limit });
      return {
        plan: o.plan,
        month: list[0]!.month,
        protected_actions: figure(list[0]!.protected_actions, q.protectedActionsPerMonth),
        months: list,
        members: figure(members, q.members),
        api_keys: figure(counts.api_keys!, q.apiKeys),
        webhook_endpoints: figure(counts.webhook_endpoints!, q.webhookEndpoints),
        agents: figure(counts.agents!, q.agents),
        mcp_servers: figure(counts.mcp_servers!, q.mcpServers),
        tools: figure(counts.tools!, q.tools),
        policies: figure(counts.policies!, q.policies),
        retention_days: q.retentionDays,
      };
    },
  );
}
