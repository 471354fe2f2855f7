import type { Queryable } from "@countersign/core/store";

/** One counted group of the overview: `kind` names the figure, `key` the value counted (null for single figures). */
export interface OverviewCount {
  kind: "status" | "effect" | "environment" | "outcome" | "pending_approvals" | "active_agents";
  key: string | null;
  n: number;
}

/** The overview's counts over [from, to), in one statement so they agree with each other. */
export async function overviewCounts(
  db: Queryable,
  orgId: string,
  from: Date,
  to: Date,
): Promise<OverviewCount[]> {
  const { rows } = await db.query<OverviewCount>(
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
    [orgId, from, to],
  );
  return rows;
}

/** Protected actions counted per month ('YYYY-MM') since the first day of `firstMonth`. */
export async function monthlyActions(
  db: Queryable,
  orgId: string,
  firstMonth: Date,
): Promise<Map<string, number>> {
  const { rows } = await db.query<{ month: string; n: string }>(
    `select to_char(month, 'YYYY-MM') as month, sum(protected_actions)::bigint as n from usage_counters
      where organization_id = $1 and month >= $2::date group by month`,
    [orgId, firstMonth.toISOString().slice(0, 10)],
  );
  return new Map(rows.map((m) => [m.month, Number(m.n)]));
}

export interface ResourceCounts {
  api_keys: number;
  webhook_endpoints: number;
  agents: number;
  mcp_servers: number;
  tools: number;
  policies: number;
}

/**
 * What the plan limits count, besides members: live keys, agents not disabled (see countedAgents
 * in api/src/agents/store.ts) and every other resource.
 */
export async function resourceCounts(db: Queryable, orgId: string): Promise<ResourceCounts> {
  const { rows } = await db.query<ResourceCounts>(
    `select (select count(*) from api_keys where organization_id = $1 and revoked_at is null)::int as api_keys,
            (select count(*) from webhook_endpoints where organization_id = $1)::int as webhook_endpoints,
            (select count(*) from agents where organization_id = $1 and status = 'active')::int as agents,
            (select count(*) from mcp_servers where organization_id = $1)::int as mcp_servers,
            (select count(*) from tools where organization_id = $1)::int as tools,
            (select count(*) from policies where organization_id = $1)::int as policies`,
    [orgId],
  );
  return rows[0]!;
}

export interface DecisionsOnDay {
  /** The UTC day, YYYY-MM-DD. */
  day: string;
  by_status: Record<string, number>;
}

/**
 * Decisions (protected actions by `created_at`) per UTC day of the period and their status now,
 * oldest day first; days without any are absent (the dashboard's chart draws them empty).
 */
export async function decisionsByDay(
  db: Queryable,
  organizationId: string,
  from: Date,
  to: Date,
): Promise<DecisionsOnDay[]> {
  const { rows } = await db.query<{ day: string; status: string; n: number }>(
    `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, status, count(*)::int as n
       from protected_actions
      where organization_id = $1 and created_at >= $2 and created_at < $3
      group by 1, 2 order by 1, 2`,
    [organizationId, from, to],
  );
  const days = new Map<string, Record<string, number>>();
  for (const r of rows) {
    const d = days.get(r.day) ?? {};
    d[r.status] = r.n;
    days.set(r.day, d);
  }
  return [...days].map(([day, by_status]) => ({ day, by_status }));
}
