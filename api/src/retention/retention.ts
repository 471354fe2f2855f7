import { markEvidenceDeleted, OPEN_STATUSES } from "@countersign/core/actions";
import { quotas, type Plan, isPlan } from "@countersign/core/plans";
import { inTransaction, type Pool } from "@countersign/core/store";
import { audit, serviceActor } from "../audit/record.js";

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
    const { rows: claimed } = await db.query<{ id: string }>(
      `select id from protected_actions
        where organization_id = $1 and evidence_deleted_at is null and status <> all($2::text[])
          and updated_at < $3 and (expires_at is null or expires_at < $4)
        order by updated_at limit $5
        for update skip locked`,
      [organizationId, OPEN_STATUSES, cutoff, now, RETENTION_BATCH],
    );
    const ids = claimed.map((r) => r.id);
    const counts: RetentionCounts = {
      actions: ids.length,
      receipts: 0,
      signed_objects: 0,
      events: 0,
      deliveries: 0,
    };
    if (ids.length > 0) {
      counts.signed_objects =
        (await db.query("delete from signed_objects where protected_action_id = any($1::uuid[])", [ids]))
          .rowCount ?? 0;
      counts.receipts =
        (
          await db.query(
            `update receipts
                set issued_at = coalesce(issued_at, (convert_from(bundle, 'UTF8')::jsonb #>> '{receipt,body,issued_at}')::timestamptz),
                    bundle = null, verification_at_issuance = null, verified_at_issuance = null, evidence_deleted_at = $2
              where protected_action_id = any($1::uuid[]) and evidence_deleted_at is null`,
            [ids, now],
          )
        ).rowCount ?? 0;
      await markEvidenceDeleted(db, ids, now);
    }
    const { rows: ev } = await db.query<{ events: number; deliveries: number }>(
      `with doomed as (
         select e.id from events e
          where e.organization_id = $1 and e.created_at < $2
            and not exists (select 1 from webhook_deliveries d where d.event_id = e.id and d.state = 'pending')
            and not exists (select 1 from protected_actions pa
                             where pa.id::text = e.data->>'protected_action_id' and pa.status = any($3::text[]))
          limit $4
          for update of e skip locked),
       deliveries as (select count(*)::int as n from webhook_deliveries where event_id in (select id from doomed)),
       gone as (delete from events where id in (select id from doomed) returning 1)
       select (select count(*)::int from gone) as events, (select n from deliveries) as deliveries`,
      [organizationId, cutoff, OPEN_STATUSES, RETENTION_BATCH],
    );
    counts.events = ev[0]!.events;
    counts.deliveries = ev[0]!.deliveries;
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
  const { rows: orgs } = await pool.query<{
    id: string;
    plan: string | null;
    data_retention_days: number | null;
  }>("select id, plan, data_retention_days from organizations");
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
