import { ServiceError } from "@countersign/protocol/errors";
import type { Queryable } from "@countersign/core/store";

/**
 * Observe windows (SPEC 3.9) as stored in `observe_windows` (migration 0005).
 * A window is open while `ended_at` is null and `ends_at` is in the future.
 */
export interface WindowRow {
  id: string;
  agent_id: string;
  agent_name: string;
  policy_id: string | null;
  started_by: string | null;
  started_at: Date;
  hours: number;
  ends_at: Date;
  live: boolean;
  reason: string | null;
  ended_at: Date | null;
  ended_by: string | null;
  end_reason: EndReason | null;
}

export type EndReason = "ended" | "expired" | "settings_changed";

const WINDOW_COLUMNS = `w.id, w.agent_id, a.name as agent_name, w.policy_id, w.started_by, w.started_at, w.hours, w.ends_at, w.live,
  w.reason, w.ended_at, w.ended_by, w.end_reason`;
const WINDOW_FROM = "observe_windows w join agents a on a.id = w.agent_id";

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

/**
 * Marks windows that ran out as ended at the time they ran out (of one organization, or of all
 * when null); rows another transaction holds are skipped: that one is closing or ending them.
 */
export async function expireWindows(
  db: Queryable,
  organizationId: string | null,
  now: Date,
  limit: number,
): Promise<{ id: string; organization_id: string }[]> {
  const { rows } = await db.query<{ id: string; organization_id: string }>(
    `update observe_windows set ended_at = ends_at, end_reason = 'expired'
      where id in (select id from observe_windows
                    where ($1::uuid is null or organization_id = $1) and ended_at is null and ends_at <= $2
                    limit $3 for update skip locked)
      returning id, organization_id`,
    [organizationId, now, limit],
  );
  return rows;
}

/** Which open windows of an organization end (by a person's call, or by the owner's settings changes). */
export type WindowSelection =
  | { kind: "agent"; agentId: string }
  | { kind: "all" }
  | { kind: "settings"; lowered: boolean; maxHours: number; withdrawn: boolean };

const selections: Record<WindowSelection["kind"], string> = {
  agent: "w.agent_id = $5",
  all: "true",
  // hours > 0 always, so a longest window of 0 ends every window
  settings: "($5::boolean and w.hours > $6) or ($7::boolean and w.live)",
};

const selectionArgs = (s: WindowSelection): unknown[] =>
  s.kind === "agent" ? [s.agentId] : s.kind === "all" ? [] : [s.lowered, s.maxHours, s.withdrawn];

/** Ends the selected open windows of an organization; returns their ids. */
export async function endOpenWindows(
  db: Queryable,
  e: { organizationId: string; now: Date; endedBy: string | null; reason: EndReason; which: WindowSelection },
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `update observe_windows w set ended_at = $2, ended_by = $3, end_reason = $4
      where w.organization_id = $1 and w.ended_at is null and (${selections[e.which.kind]}) returning w.id`,
    [e.organizationId, e.now, e.endedBy, e.reason, ...selectionArgs(e.which)],
  );
  return rows.map((r) => r.id);
}

/** Windows by id, oldest first. */
export async function windowsByIds(db: Queryable, ids: string[]): Promise<WindowRow[]> {
  const { rows } = await db.query<WindowRow>(
    `select ${WINDOW_COLUMNS} from ${WINDOW_FROM} where w.id = any($1::uuid[]) order by w.started_at`,
    [ids],
  );
  return rows;
}

/**
 * Ends the open windows of the agents of a policy under an emergency stop (end reason
 * `policy_emergency`, not audited one by one: the stop's audit entry counts them).
 */
export async function endWindowsOfPolicy(
  db: Queryable,
  q: { organizationId: string; policyId: string; now: Date; endedBy: string | null },
): Promise<number> {
  const { rowCount } = await db.query(
    `update observe_windows set ended_at = $2, ended_by = $3, end_reason = 'policy_emergency'
      where organization_id = $1 and ended_at is null and agent_id in (select id from agents where policy_id = $4)`,
    [q.organizationId, q.now, q.endedBy, q.policyId],
  );
  return rowCount ?? 0;
}

/** Policies of the organization with an agent in an open observe window now. */
export async function observingPolicies(
  db: Queryable,
  organizationId: string,
  now: Date,
): Promise<Set<string>> {
  const { rows } = await db.query<{ policy_id: string }>(
    `select distinct a.policy_id from observe_windows w join agents a on a.id = w.agent_id
      where w.organization_id = $1 and w.ended_at is null and w.ends_at > $2 and a.policy_id is not null`,
    [organizationId, now],
  );
  return new Set(rows.map((r) => r.policy_id));
}
