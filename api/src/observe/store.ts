import { ServiceError } from "@countersign/protocol/errors";
import type { Queryable } from "@countersign/core/store";
import { WINDOW_COLUMNS, WINDOW_FROM, type WindowRow } from "./windows.js";

/** SPEC 8.5: observe windows shown per agent. */
export const WINDOWS_SHOWN_PER_AGENT = 20;
/** The relaxed calls a report lists, newest first; the counts cover them all. */
export const REPORT_CALLS_LISTED = 100;

export async function readWindow(db: Queryable, orgId: string, id: string): Promise<WindowRow> {
  const { rows } = await db.query<WindowRow>(
    `select ${WINDOW_COLUMNS} from ${WINDOW_FROM} where w.id = $1 and w.organization_id = $2`,
    [id, orgId],
  );
  if (!rows[0]) throw new ServiceError("NOT_FOUND", "observe window not found");
  return rows[0];
}

/** The organization's observe settings, locked while a window starts. */
export async function lockObserveSettings(db: Queryable, orgId: string) {
  const { rows } = await db.query<{ observe_max_hours: number; observe_live_opt_in: boolean | null }>(
    "select observe_max_hours, observe_live_opt_in from organizations where id = $1 for update",
    [orgId],
  );
  return rows[0]!;
}

/** Locks the organization, so windows ended together are ended once. */
export async function lockOrganization(db: Queryable, orgId: string): Promise<void> {
  await db.query("select 1 from organizations where id = $1 for update", [orgId]);
}

export async function isEmergencyStopped(db: Queryable, policyId: string): Promise<boolean> {
  const { rows } = await db.query<{ stopped: boolean }>(
    "select emergency_stopped_at is not null as stopped from policies where id = $1",
    [policyId],
  );
  return Boolean(rows[0]?.stopped);
}

export async function hasOpenWindow(db: Queryable, agentId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    "select 1 from observe_windows where agent_id = $1 and ended_at is null",
    [agentId],
  );
  return Boolean(rowCount);
}

export async function insertWindow(
  db: Queryable,
  w: {
    organizationId: string;
    agentId: string;
    policyId: string | null;
    startedBy: string | null;
    startedAt: Date;
    hours: number;
    live: boolean;
    reason: string | null;
  },
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `insert into observe_windows (organization_id, agent_id, policy_id, started_by, started_at, hours, ends_at, live, reason)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning id`,
    [
      w.organizationId,
      w.agentId,
      w.policyId,
      w.startedBy,
      w.startedAt,
      w.hours,
      new Date(w.startedAt.getTime() + w.hours * 3_600_000),
      w.live,
      w.reason,
    ],
  );
  return rows[0]!.id;
}

/** The agent's latest windows, newest first. */
export async function latestWindowsOf(db: Queryable, agentId: string): Promise<WindowRow[]> {
  const { rows } = await db.query<WindowRow>(
    `select ${WINDOW_COLUMNS} from ${WINDOW_FROM} where w.agent_id = $1 order by w.started_at desc, w.id desc limit ${WINDOWS_SHOWN_PER_AGENT}`,
    [agentId],
  );
  return rows;
}

/** A page of the organization's windows, newest first, after the `[started_at, id]` cursor. */
export async function listWindows(
  db: Queryable,
  orgId: string,
  q: { state?: "open" | "ended"; agentId?: string; after?: [string, string]; limit: number },
): Promise<WindowRow[]> {
  const { rows } = await db.query<WindowRow>(
    `select ${WINDOW_COLUMNS} from ${WINDOW_FROM} where w.organization_id = $1
       and ($2::text is null or (w.ended_at is null) = ($2 = 'open'))
       and ($3::uuid is null or w.agent_id = $3)
       and ($4::timestamptz is null or (w.started_at, w.id) < ($4::timestamptz, $5::uuid))
     order by w.started_at desc, w.id desc limit $6`,
    [orgId, q.state ?? null, q.agentId ?? null, q.after?.[0] ?? null, q.after?.[1] ?? null, q.limit],
  );
  return rows;
}

/** What a window relaxed: counts of all its decisions, and its latest relaxed calls. */
export async function windowReport(db: Queryable, windowId: string) {
  const { rows: counts } = await db.query<{
    decisions: number;
    relaxed: number;
    by_effect: Record<string, number> | null;
    by_status: Record<string, number> | null;
  }>(
    `select count(*)::int as decisions, count(*) filter (where relaxed)::int as relaxed,
          (select json_object_agg(coalesce(e, 'none'), n) from (select policy_effect as e, count(*)::int as n from protected_actions where observe_window_id = $1 group by 1) x) as by_effect,
          (select json_object_agg(s, n) from (select status as s, count(*)::int as n from protected_actions where observe_window_id = $1 group by 1) y) as by_status
     from protected_actions where observe_window_id = $1`,
    [windowId],
  );
  const { rows: calls } = await db.query<{
    id: string;
    tool_name: string;
    action: string;
    environment: string;
    status: string;
    policy_effect: string | null;
    rule_id: string | null;
    decision_code: string | null;
    created_at: Date;
  }>(
    `select id, tool_name, action, environment, status, policy_effect, rule_id, decision_code, created_at
     from protected_actions where observe_window_id = $1 and relaxed order by created_at desc, id desc limit ${REPORT_CALLS_LISTED}`,
    [windowId],
  );
  return { counts: counts[0]!, calls };
}
