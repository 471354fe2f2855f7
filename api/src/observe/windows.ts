import type { ObserveWindow } from "@countersign/protocol/wire";
import type { Queryable } from "@countersign/core/store";
import { audit, serviceActor, type Actor } from "../audit/record.js";
import {
  endOpenWindows,
  expireWindows,
  windowsByIds,
  type EndReason,
  type WindowRow,
  type WindowSelection,
} from "./store.js";

/**
 * Observe windows (SPEC 3.9): ending them, with an audit entry each. A window
 * that ran out is closed here (end_reason `expired`) the next time anything
 * reads or starts windows of its organization. The decision pipeline never
 * relies on that: it compares `ends_at` with the time itself.
 */
export type { EndReason, WindowRow };

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
  const rows = await expireWindows(db, organizationId, now, limit);
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
 * Ends the open windows of an organization that `which` selects, audits each,
 * and returns them as they are now.
 */
export async function endWindows(
  db: Queryable,
  e: {
    organizationId: string;
    now: Date;
    reason: EndReason;
    actor: Actor;
    endedBy: string | null;
    which: WindowSelection;
  },
): Promise<WindowRow[]> {
  await closeExpiredWindows(db, e.organizationId, e.now);
  const ids = await endOpenWindows(db, e);
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
  return windowsByIds(db, ids);
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
    which: { kind: "settings", lowered, maxHours: s.after.maxHours, withdrawn },
  });
}
