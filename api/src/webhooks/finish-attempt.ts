import { inTransaction, type Pool } from "@countersign/core/store";
import { retryDelayMs } from "@countersign/core/webhooks";
import { holdsLease, logAttempt, markDelivered, markFailed, scheduleRetry } from "./attempt-store.js";
import type { ClaimedAttempt } from "./claim.js";
import type { AttemptResult } from "./send-attempt.js";

export type DeliveryOutcome = "delivered" | "retry" | "failed" | "lost_lease";

/**
 * Logs the attempt and moves the delivery on (SPEC 3.7): delivered on 2xx,
 * else the next attempt after the schedule's delay, or Failed after the 8th.
 * Only while this process still holds the lease: if it expired and another
 * process took the delivery over, that process owns it now.
 */
export async function finishAttempt(
  pool: Pool,
  claim: ClaimedAttempt,
  result: AttemptResult,
  at: { now: Date; durationMs: number },
): Promise<DeliveryOutcome> {
  return inTransaction(pool, async (db) => {
    if (!(await holdsLease(db, claim.deliveryId, claim.leaseToken))) return "lost_lease";
    await logAttempt(db, {
      deliveryId: claim.deliveryId,
      number: claim.number,
      finishedAt: at.now,
      durationMs: Math.round(at.durationMs),
      status: result.status,
      error: result.error,
    });
    if (result.ok) {
      await markDelivered(db, claim.deliveryId, at.now);
      return "delivered";
    }
    const delay = retryDelayMs(claim.roundAttempt);
    if (delay === null) {
      await markFailed(db, claim.deliveryId, at.now);
      return "failed";
    }
    await scheduleRetry(db, claim.deliveryId, new Date(at.now.getTime() + delay));
    return "retry";
  });
}
