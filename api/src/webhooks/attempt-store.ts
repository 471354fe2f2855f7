import type { Queryable } from "@countersign/core/store";

/**
 * The delivery worker's SQL (claim.ts, finish-attempt.ts, delivery-worker.ts): claiming due
 * attempts under a lease, logging attempts, moving deliveries on. Every function runs in the
 * caller's transaction except `oldestDue`, a read for the queue-age metric.
 */

// One key for every api process: claims are made one process at a time, in
// a transaction of a few milliseconds, so the in-flight counts read inside it
// are exact across processes.
const CLAIM_LOCK = 0x5748_4b31; // "WHK1"

export async function lockClaims(db: Queryable): Promise<void> {
  await db.query("select pg_advisory_xact_lock($1)", [CLAIM_LOCK]);
}

/** Deliveries in flight now (a lease not expired), by endpoint and organization. */
export async function deliveriesInFlight(
  db: Queryable,
  now: Date,
): Promise<{ endpoint_id: string; organization_id: string }[]> {
  const { rows } = await db.query<{ endpoint_id: string; organization_id: string }>(
    "select endpoint_id, organization_id from webhook_deliveries where state = 'pending' and lease_until > $1",
    [now],
  );
  return rows;
}

export interface DueRow {
  id: string;
  endpoint_id: string;
  organization_id: string;
  round_attempts: number;
  lease_token: string | null;
}

// Due times are PostgreSQL's (microseconds) and `now` is a JavaScript Date
// (milliseconds): a delivery due within the current millisecond is due.
const DUE = `d.state = 'pending' and e.enabled and d.next_attempt_at < $1::timestamptz + interval '1 millisecond'
            and (d.lease_until is null or d.lease_until <= $1)`;

/**
 * The oldest due delivery of each enabled endpoint (only one per endpoint can be in flight
 * anyway, so a backlog at one endpoint never hides the others), locked, skipping those another
 * process holds.
 */
export async function lockDueDeliveries(db: Queryable, now: Date): Promise<DueRow[]> {
  const { rows: heads } = await db.query<{ id: string }>(
    `select id from (
       select distinct on (d.endpoint_id) d.id, d.next_attempt_at
         from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
        where ${DUE}
        order by d.endpoint_id, d.next_attempt_at, d.id) heads
     order by next_attempt_at, id limit 1000`,
    [now],
  );
  const { rows } = await db.query<DueRow>(
    `select id, endpoint_id, organization_id, round_attempts, lease_token
       from webhook_deliveries
      where id = any($1) and state = 'pending' and (lease_until is null or lease_until <= $2)
      order by next_attempt_at, id
      for update skip locked`,
    [heads.map((h) => h.id), now],
  );
  return rows;
}

/** Logs the delivery's unfinished attempt as INTERRUPTED (its process died); how many were. */
export async function interruptAttempts(db: Queryable, deliveryId: string, now: Date): Promise<number> {
  const { rowCount } = await db.query(
    `update webhook_attempts set error = 'INTERRUPTED', finished_at = $2
      where delivery_id = $1 and finished_at is null`,
    [deliveryId, now],
  );
  return rowCount ?? 0;
}

export async function markFailed(db: Queryable, deliveryId: string, now: Date): Promise<void> {
  await db.query(
    "update webhook_deliveries set state = 'failed', failed_at = $2, lease_token = null, lease_until = null where id = $1",
    [deliveryId, now],
  );
}

export async function markDelivered(db: Queryable, deliveryId: string, now: Date): Promise<void> {
  await db.query(
    "update webhook_deliveries set state = 'delivered', delivered_at = $2, lease_token = null, lease_until = null where id = $1",
    [deliveryId, now],
  );
}

export async function scheduleRetry(db: Queryable, deliveryId: string, at: Date): Promise<void> {
  await db.query(
    "update webhook_deliveries set next_attempt_at = $2, lease_token = null, lease_until = null where id = $1",
    [deliveryId, at],
  );
}

/** Leases the delivery to this process and starts its next attempt; the attempt's overall number. */
export async function leaseAndStartAttempt(
  db: Queryable,
  a: { deliveryId: string; leaseToken: string; leaseUntil: Date; now: Date },
): Promise<number> {
  await db.query(
    "update webhook_deliveries set lease_token = $2, lease_until = $3, round_attempts = round_attempts + 1 where id = $1",
    [a.deliveryId, a.leaseToken, a.leaseUntil],
  );
  const { rows } = await db.query<{ number: number }>(
    `insert into webhook_attempts (delivery_id, number, started_at)
     select $1, coalesce(max(number), 0) + 1, $2 from webhook_attempts where delivery_id = $1
     returning number`,
    [a.deliveryId, a.now],
  );
  return rows[0]!.number;
}

/** What an attempt sends: the endpoint's URL and secrets, and the event. */
export async function attemptTarget(db: Queryable, deliveryId: string) {
  const { rows } = await db.query<{
    url: string;
    secret_encrypted: Buffer;
    previous_secret_encrypted: Buffer | null;
    previous_secret_until: Date | null;
    event_id: string;
    type: string;
    data: unknown;
    created_at: Date;
  }>(
    `select e.url, e.secret_encrypted, e.previous_secret_encrypted, e.previous_secret_until,
            v.id as event_id, v.type, v.data, v.created_at
       from webhook_deliveries d
       join webhook_endpoints e on e.id = d.endpoint_id
       join events v on v.id = d.event_id
      where d.id = $1`,
    [deliveryId],
  );
  return rows[0]!;
}

/** Whether this process still holds the delivery's lease; locks the delivery when it does. */
export async function holdsLease(db: Queryable, deliveryId: string, leaseToken: string): Promise<boolean> {
  const { rows } = await db.query(
    "select 1 from webhook_deliveries where id = $1 and lease_token = $2 for update",
    [deliveryId, leaseToken],
  );
  return rows.length > 0;
}

export async function logAttempt(
  db: Queryable,
  a: {
    deliveryId: string;
    number: number;
    finishedAt: Date;
    durationMs: number;
    status: number | null;
    error: string | null;
  },
): Promise<void> {
  await db.query(
    `update webhook_attempts set finished_at = $3, duration_ms = $4, status_code = $5, error = $6
      where delivery_id = $1 and number = $2`,
    [a.deliveryId, a.number, a.finishedAt, a.durationMs, a.status, a.error],
  );
}

/** When the oldest due delivery was due (null: none is). */
export async function oldestDue(db: Queryable, now: Date): Promise<Date | null> {
  const { rows } = await db.query<{ oldest: Date | null }>(
    `select min(d.next_attempt_at) as oldest from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
      where ${DUE}`,
    [now],
  );
  return rows[0]?.oldest ?? null;
}
