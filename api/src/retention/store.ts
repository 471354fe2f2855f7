import type { Queryable } from "@countersign/core/store";

/** Every organization's plan and own retention period (null: the plan's). */
export async function organizationsRetention(
  db: Queryable,
): Promise<{ id: string; plan: string | null; data_retention_days: number | null }[]> {
  const { rows } = await db.query<{ id: string; plan: string | null; data_retention_days: number | null }>(
    "select id, plan, data_retention_days from organizations",
  );
  return rows;
}

/**
 * Claim (SKIP LOCKED, so api processes share the work) up to `limit` ended actions of an
 * organization whose evidence is past the cutoff and past their authorization window.
 */
export async function claimExpiredActions(
  db: Queryable,
  q: { organizationId: string; openStatuses: readonly string[]; cutoff: Date; now: Date; limit: number },
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `select id from protected_actions
      where organization_id = $1 and evidence_deleted_at is null and status <> all($2::text[])
        and updated_at < $3 and (expires_at is null or expires_at < $4)
      order by updated_at limit $5
      for update skip locked`,
    [q.organizationId, q.openStatuses, q.cutoff, q.now, q.limit],
  );
  return rows.map((r) => r.id);
}

/** Delete the hosted signed objects of these actions; how many went. */
export async function deleteSignedObjects(db: Queryable, actionIds: string[]): Promise<number> {
  const r = await db.query("delete from signed_objects where protected_action_id = any($1::uuid[])", [
    actionIds,
  ]);
  return r.rowCount ?? 0;
}

/**
 * Strip these actions' receipts down to ids, outcome, SHA-256, size and issued_at (kept from the
 * bundle before it goes); how many receipts changed.
 */
export async function stripReceipts(db: Queryable, actionIds: string[], now: Date): Promise<number> {
  const r = await db.query(
    `update receipts
        set issued_at = coalesce(issued_at, (convert_from(bundle, 'UTF8')::jsonb #>> '{receipt,body,issued_at}')::timestamptz),
            bundle = null, verification_at_issuance = null, verified_at_issuance = null, evidence_deleted_at = $2
      where protected_action_id = any($1::uuid[]) and evidence_deleted_at is null`,
    [actionIds, now],
  );
  return r.rowCount ?? 0;
}

/**
 * Delete up to `limit` of an organization's events older than the cutoff with their deliveries,
 * unless a delivery is still pending or the event is about an open action.
 */
export async function deleteOldEvents(
  db: Queryable,
  q: { organizationId: string; cutoff: Date; openStatuses: readonly string[]; limit: number },
): Promise<{ events: number; deliveries: number }> {
  const { rows } = await db.query<{ events: number; deliveries: number }>(
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
    [q.organizationId, q.cutoff, q.openStatuses, q.limit],
  );
  return rows[0]!;
}
