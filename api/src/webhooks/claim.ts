import { randomUUID } from "node:crypto";
import { inTransaction, type Pool } from "@countersign/core/store";
import { MAX_ATTEMPTS, type EventRow } from "@countersign/core/webhooks";
import {
  attemptTarget,
  deliveriesInFlight,
  interruptAttempts,
  leaseAndStartAttempt,
  lockClaims,
  lockDueDeliveries,
  markFailed,
  type DueRow,
} from "./attempt-store.js";

/** SPEC 6.4: at most 1 delivery in flight per endpoint and 4 per organization. */
export const PER_ENDPOINT = 1;
export const PER_ORGANIZATION = 4;

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
    // Claims are made one process at a time (a transaction-scoped lock), so the in-flight
    // counts read inside it are exact across processes.
    await lockClaims(db);
    const busy = await deliveriesInFlight(db, opts.now);
    const due = await lockDueDeliveries(db, opts.now);

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
        interrupted += await interruptAttempts(db, d.id, opts.now);
        if (d.round_attempts >= MAX_ATTEMPTS) {
          await markFailed(db, d.id, opts.now);
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
      const number = await leaseAndStartAttempt(db, {
        deliveryId: d.id,
        leaseToken,
        leaseUntil,
        now: opts.now,
      });
      const r = await attemptTarget(db, d.id);
      claimed.push({
        deliveryId: d.id,
        endpointId: d.endpoint_id,
        organizationId: d.organization_id,
        leaseToken,
        number,
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
