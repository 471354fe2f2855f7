import { randomUUID } from "node:crypto";
import { inTransaction, type Pool } from "@countersign/core/store";
import { MAX_ATTEMPTS, type EventRow } from "@countersign/core/webhooks";

/** SPEC 6.4: at most 1 delivery in flight per endpoint and 4 per organization. */
export const PER_ENDPOINT = 1;
export const PER_ORGANIZATION = 4;

// One key for every api process: claims are made one process at a time, in
// a transaction of a few milliseconds, so the in-flight counts read inside it
// are exact across processes.
const CLAIM_LOCK = 0x5748_4b31; // "WHK1"

/** A delivery attempt this process now owns until `leaseUntil`. */
export interface ClaimedAttempt {
  deliveryId: string;
  endpointId: string;
  organizationId: string;
  leaseToken: string;
  /** Overall attempt number (1, 2, ... across redeliveries). */
  number: number;
  /** Attempt number within the current round (1-8): sets the retry delay. */
  roundAttempt: number;
  url: string;
  endpoint: {
    id: string;
    secret_encrypted: Buffer;
    previous_secret_encrypted: Buffer | null;
    previous_secret_until: Date | null;
  };
  event: EventRow;
}

interface DueRow {
  id: string;
  endpoint_id: string;
  organization_id: string;
  round_attempts: number;
  lease_token: string | null;
}

/**
 * Claims due attempts in one short transaction. A delivery whose lease
 * expired belongs to a process that died mid-attempt: that attempt is logged
 * as interrupted (it counts), and the delivery is sent again now, or is
 * Failed when that was its 8th attempt.
 */
export async function claimAttempts(
  pool: Pool,
  opts: { now: Date; leaseMs: number; max: number },
): Promise<{ claimed: ClaimedAttempt[]; interrupted: number; failed: number }> {
  if (opts.max <= 0) return { claimed: [], interrupted: 0, failed: 0 };
  return inTransaction(pool, async (db) => {
    await db.query("select pg_advisory_xact_lock($1)", [CLAIM_LOCK]);
    const { rows: busy } = await db.query<{ endpoint_id: string; organization_id: string }>(
      "select endpoint_id, organization_id from webhook_deliveries where state = 'pending' and lease_until > $1",
      [opts.now],
    );
    // The oldest due delivery of each endpoint (only one per endpoint can be
    // in flight anyway), so a backlog at one endpoint never hides the others.
    // Due times are PostgreSQL's (microseconds) and `now` is a JavaScript Date
    // (milliseconds): a delivery due within the current millisecond is due.
    const { rows: heads } = await db.query<{ id: string }>(
      `select id from (
         select distinct on (d.endpoint_id) d.id, d.next_attempt_at
           from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
          where d.state = 'pending' and e.enabled and d.next_attempt_at < $1::timestamptz + interval '1 millisecond'
            and (d.lease_until is null or d.lease_until <= $1)
          order by d.endpoint_id, d.next_attempt_at, d.id) heads
       order by next_attempt_at, id limit 1000`,
      [opts.now],
    );
    const { rows: due } = await db.query<DueRow>(
      `select id, endpoint_id, organization_id, round_attempts, lease_token
         from webhook_deliveries
        where id = any($1) and state = 'pending' and (lease_until is null or lease_until <= $2)
        order by next_attempt_at, id
        for update skip locked`,
      [heads.map((h) => h.id), opts.now],
    );

    const perEndpoint = new Map<string, number>();
    const perOrganization = new Map<string, number>();
    const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
    for (const b of busy) {
      bump(perEndpoint, b.endpoint_id);
      bump(perOrganization, b.organization_id);
    }

    const picked: DueRow[] = [];
    let failed = 0;
    let interrupted = 0;
    for (const d of due) {
      if (picked.length >= opts.max) break;
      if (d.lease_token) {
        // The previous claim's process died mid-attempt.
        const { rowCount } = await db.query(
          `update webhook_attempts set error = 'INTERRUPTED', finished_at = $2
            where delivery_id = $1 and finished_at is null`,
          [d.id, opts.now],
        );
        interrupted += rowCount ?? 0;
        if (d.round_attempts >= MAX_ATTEMPTS) {
          await db.query(
            "update webhook_deliveries set state = 'failed', failed_at = $2, lease_token = null, lease_until = null where id = $1",
            [d.id, opts.now],
          );
          failed++;
          continue;
        }
      }
      if ((perEndpoint.get(d.endpoint_id) ?? 0) >= PER_ENDPOINT) continue;
      if ((perOrganization.get(d.organization_id) ?? 0) >= PER_ORGANIZATION) continue;
      bump(perEndpoint, d.endpoint_id);
      bump(perOrganization, d.organization_id);
      picked.push(d);
    }

    const claimed: ClaimedAttempt[] = [];
    const leaseUntil = new Date(opts.now.getTime() + opts.leaseMs);
    for (const d of picked) {
      const leaseToken = randomUUID();
      await db.query(
        "update webhook_deliveries set lease_token = $2, lease_until = $3, round_attempts = round_attempts + 1 where id = $1",
        [d.id, leaseToken, leaseUntil],
      );
      const { rows: n } = await db.query<{ number: number }>(
        `insert into webhook_attempts (delivery_id, number, started_at)
         select $1, coalesce(max(number), 0) + 1, $2 from webhook_attempts where delivery_id = $1
         returning number`,
        [d.id, opts.now],
      );
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
        [d.id],
      );
      const r = rows[0]!;
      claimed.push({
        deliveryId: d.id,
        endpointId: d.endpoint_id,
        organizationId: d.organization_id,
        leaseToken,
        number: n[0]!.number,
        roundAttempt: d.round_attempts + 1,
        url: r.url,
        endpoint: {
          id: d.endpoint_id,
          secret_encrypted: r.secret_encrypted,
          previous_secret_encrypted: r.previous_secret_encrypted,
          previous_secret_until: r.previous_secret_until,
        },
        event: {
          id: r.event_id,
          type: r.type,
          organization_id: d.organization_id,
          data: r.data,
          created_at: r.created_at,
        },
      });
    }
    return { claimed, interrupted, failed };
  });
}
