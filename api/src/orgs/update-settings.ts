import { inTransaction, type Pool } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
import { endWindowsForSettings } from "../observe/windows.js";
import type { OrganizationRow } from "./organization-json.js";
import { readOrganization, updateSettings, type SettingsColumn } from "./store.js";

/**
 * Change organization settings, audited as `organization.updated` (and
 * `organization.retention_changed` when the retention period changes). Changes that narrow observe
 * mode end the windows they no longer allow, in the same transaction. No change, no write.
 */
export async function updateOrganizationSettings(
  pool: Pool,
  q: {
    organizationId: string;
    changes: [SettingsColumn, unknown][];
    /** The new data_retention_days when the change names it (null: the plan's). */
    retentionDays: number | null | undefined;
    endedBy: string | null;
    actor: Actor;
  },
): Promise<OrganizationRow> {
  return inTransaction(pool, async (db) => {
    const b = await readOrganization(db, q.organizationId, true);
    if (q.changes.length === 0) return b;
    const a = await updateSettings(db, q.organizationId, q.changes);
    await audit(db, {
      organizationId: q.organizationId,
      action: "organization.updated",
      actor: q.actor,
      target: { type: "organization", id: q.organizationId },
      details: { fields: q.changes.map(([k]) => k) },
    });
    if (q.retentionDays !== undefined && q.retentionDays !== b.data_retention_days) {
      await audit(db, {
        organizationId: q.organizationId,
        action: "organization.retention_changed",
        actor: q.actor,
        target: { type: "organization", id: q.organizationId },
        details: { from_days: b.data_retention_days, to_days: q.retentionDays },
      });
    }
    await endWindowsForSettings(db, {
      organizationId: q.organizationId,
      now: new Date(),
      actor: q.actor,
      endedBy: q.endedBy,
      before: { maxHours: b.observe_max_hours, liveOptIn: !!b.observe_live_opt_in },
      after: { maxHours: a.observe_max_hours, liveOptIn: !!a.observe_live_opt_in },
    });
    return a;
  });
}
