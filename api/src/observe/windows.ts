import type { ObserveWindow } from "@countersign/protocol/wire";
import type { Queryable } from "@countersign/core/store";
import { audit, serviceActor, type Actor } from "../audit/record.js";

/**
 * Observe windows (SPEC 3.9) as stored in `observe_windows` (migration 0005).
 * A window is open while `ended_at` is null and `ends_at` is in the future;
 * one that ran out is closed here (end_reason `expired`) the next time
 * anything reads or starts windows of its organization. The decision
 * pipeline never relies on that: it compares `ends_at` with the time itself.
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

export const WINDOW_COLUMNS = `w.id, w.agent_id, a.name as agent_name, w.policy_id, w.started_by, w.started_at, w.hours, w.ends_at, w.live,
  w.reason, w.ended_at, w.ended_by, w.end_reason`;
export const WINDOW_FROM = "observe_windows w join agents a on a.id = w.agent_id";

export type EndReason = "ended" | "expired" | "settings_changed";

export function windowJson(w: WindowRow): ObserveWindow {
  return {
    id: w.id,
    agent: { id: w.agent_id, name: w.agent_name },
    policy_id: w.policy_id,
    state: w.ended_at ? "ended" : "open",
    hours: w.hours,
    live: w.live,
    reason: w.reason,
    started_by: w.started_by,
    started_at: w.started_at.toISOString(),
    ends_at: w.ends_at.toISOString(),
    ended_at: w.ended_at?.toISOString() ?? null,
    ended_by: w.ended_by,
    end_reason: w.end_reason,
  };
}

/**
 * Closes windows that ran out (of one organization, or of all when null), at
 * the time they ran out, audited as the service's. Rows another transaction
 * holds are skipped: that one is closing or ending them already.
 */
export async function closeExpiredWindows(
  db: Queryable,
  organizationId: string | null,
  now: Date,
  limit = 1000,
): Promise<number> {
  const { rows } = await db.query<{ id: string; organization_id: string }>(
    `update observe_windows set ended_at = ends_at, end_reason = 'expired'
      where id in (select id from observe_windows
                    where ($1::uuid is null or organization_id = $1) and ended_at is null and ends_at <= $2
                    limit $3 for update skip locked)
      returning id, organization_id`,
    [organizationId, now, limit],
  );
  for (const r of rows) {
    await audit(db, {
      organizationId: r.organization_id,
      action: "observe_window.ended",
      actor: serviceActor,
      target: { type: "observe_window", id: r.id },
      details: { reason: "expired" },
    });
  }
  return rows.length;
}

/**
 * Ends the open windows of an organization that `which` selects (an SQL
 * condition on `w`), audits each, and returns them as they are now.
 */
export async function endWindows(
  db: Queryable,
  e: {
    organizationId: string;
    now: Date;
    reason: EndReason;
    actor: Actor;
    endedBy: string | null;
    where: string;
    args: unknown[];
  },
): Promise<WindowRow[]> {
  await closeExpiredWindows(db, e.organizationId, e.now);
  const { rows } = await db.query<{ id: string }>(
    `update observe_windows w set ended_at = $2, ended_by = $3, end_reason = $4
      where w.organization_id = $1 and w.ended_at is null and (${e.where}) returning w.id`,
    [e.organizationId, e.now, e.endedBy, e.reason, ...e.args],
  );
  const ids = rows.map((r) => r.id);
  for (const id of ids) {
    await audit(db, {
      organizationId: e.organizationId,
      action: "observe_window.ended",
      actor: e.actor,
      target: { type: "observe_window", id },
      details: { reason: e.reason },
    });
  }
  if (ids.length === 0) return [];
  const { rows: ended } = await db.query<WindowRow>(
    `select ${WINDOW_COLUMNS} from ${WINDOW_FROM} where w.id = any($1::uuid[]) order by w.started_at`,
    [ids],
  );
  return ended;
}

/**
 * SPEC 3.9: the owner's settings changes end windows in the same transaction
 * as the change: the longest window set to 0 ends all; lowered, it ends those
 * longer than the new longest; the live opt-in withdrawn ends live windows.
 */
export async function endWindowsForSettings(
  db: Queryable,
  s: {
    organizationId: string;
    now: Date;
    actor: Actor;
    endedBy: string | null;
    before: { maxHours: number; liveOptIn: boolean };
    after: { maxHours: number; liveOptIn: boolean };
  },
): Promise<WindowRow[]> {
  const lowered = s.after.maxHours < s.before.maxHours;
  const withdrawn = s.before.liveOptIn && !s.after.liveOptIn;
  if (!lowered && !withdrawn) return [];
  return endWindows(db, {
    organizationId: s.organizationId,
    now: s.now,
    reason: "settings_changed",
    actor: s.actor,
    endedBy: s.endedBy,
    // hours > 0 always, so a longest window of 0 ends every window
    where: "($5::boolean and w.hours > $6) or ($7::boolean and w.live)",
    args: [lowered, s.after.maxHours, withdrawn],
  });
}
