import { markEvidenceDeleted, OPEN_STATUSES } from "@countersign/core/actions";
import { quotas, type Plan, isPlan } from "@countersign/core/plans";
import { inTransaction, type Pool } from "@countersign/core/store";
import { audit, serviceActor } from "../audit/record.js";
import {
  claimExpiredActions,
  deleteOldEvents,
  deleteSignedObjects,
  organizationsRetention,
  stripReceipts,
} from "./store.js";

/** Actions handled per transaction; a pass repeats until an organization has nothing left. */
export const RETENTION_BATCH = 500;
const DAY_MS = 86_400_000;

export interface RetentionCounts {
  actions: number;
  receipts: number;
  signed_objects: number;
  events: number;
  deliveries: number;
}

/** The retention period in effect (SPEC 2.1): the organization's own if set, never longer than the plan's; null = unlimited. */
export function effectiveRetentionDays(plan: Plan, own: number | null): number | null {
  const planDays = quotas[plan].retentionDays;
  if (own === null) return planDays;
  return planDays === null ? own : Math.min(own, planDays);
}

/**
 * One batch of one organization, in one transaction: the ended actions past
 * the period (and, for hosted evidence, past their authorization window)
 * lose their hosted signed objects, receipt bundles, stored verification
 * reports and kept call data; the receipt rows keep ids, outcome, SHA-256,
 * size and issued_at. Events older than the period go with their deliveries,
 * unless a delivery is still pending or the event is about an open action.
 * Rows are claimed with SKIP LOCKED so api processes share the work.
 */
async function deleteBatch(
  pool: Pool,
  organizationId: string,
  cutoff: Date,
  now: Date,
  days: number,
): Promise<RetentionCounts> {
  return inTransaction(pool, async (db) => {
    const ids = await claimExpiredActions(db, {
      organizationId,
      openStatuses: OPEN_STATUSES,
      cutoff,
      now,
      limit: RETENTION_BATCH,
    });
    const counts: RetentionCounts = {
      actions: ids.length,
      receipts: 0,
      signed_objects: 0,
      events: 0,
      deliveries: 0,
    };
    if (ids.length > 0) {
      counts.signed_objects = await deleteSignedObjects(db, ids);
      counts.receipts = await stripReceipts(db, ids, now);
      await markEvidenceDeleted(db, ids, now);
    }
    const ev = await deleteOldEvents(db, {
      organizationId,
      cutoff,
      openStatuses: OPEN_STATUSES,
      limit: RETENTION_BATCH,
    });
    counts.events = ev.events;
    counts.deliveries = ev.deliveries;
    if (counts.actions + counts.events > 0) {
      // Counts only (SPEC 8.7): never ids, arguments or results.
      await audit(db, {
        organizationId,
        action: "retention.evidence_deleted",
        actor: serviceActor,
        target: { type: "organization", id: organizationId },
        details: { ...counts, retention_days: days, cutoff: cutoff.toISOString() },
      });
    }
    return counts;
  });
}

/**
 * A retention pass over every organization (docs/retention.md). The period
 * is read on every pass, so a shorter one chosen by an owner applies on the
 * next pass (within minutes). Returns what was deleted, per organization.
 */
export async function applyRetention(
  pool: Pool,
  opts: { now: Date; defaultPlan: Plan },
): Promise<Map<string, RetentionCounts>> {
  const orgs = await organizationsRetention(pool);
  const done = new Map<string, RetentionCounts>();
  for (const o of orgs) {
    const days = effectiveRetentionDays(isPlan(o.plan) ? o.plan : opts.defaultPlan, o.data_retention_days);
    if (days === null) continue;
    const cutoff = new Date(opts.now.getTime() - days * DAY_MS);
    const total: RetentionCounts = { actions: 0, receipts: 0, signed_objects: 0, events: 0, deliveries: 0 };
    for (;;) {
      const c = await deleteBatch(pool, o.id, cutoff, opts.now, days);
      for (const k of Object.keys(total) as (keyof RetentionCounts)[]) total[k] += c[k];
      if (c.actions < RETENTION_BATCH && c.events < RETENTION_BATCH) break;
    }
    if (total.actions + total.events > 0) done.set(o.id, total);
  }
  return done;
}
