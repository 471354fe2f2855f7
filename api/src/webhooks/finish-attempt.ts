import { inTransaction, type Pool } from "@countersign/core/store";
import { retryDelayMs } from "@countersign/core/webhooks";
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
    const { rows } = await db.query(
      "select 1 from webhook_deliveries where id = $1 and lease_token = $2 for update",
      [claim.deliveryId, claim.leaseToken],
    );
    if (!rows.length) return "lost_lease";
    await db.query(
      `update webhook_attempts set finished_at = $3, duration_ms = $4, status_code = $5, error = $6
        where delivery_id = $1 and number = $2`,
      [claim.deliveryId, claim.number, at.now, Math.round(at.durationMs), result.status, result.error],
    );
    if (result.ok) {
      await db.query(
        "update webhook_deliveries set state = 'delivered', delivered_at = $2, lease_token = null, lease_until = null where id = $1",
        [claim.deliveryId, at.now],
      );
      return "delivered";
    }
    const delay = retryDelayMs(claim.roundAttempt);
    if (delay === null) {
      await db.query(
        "update webhook_deliveries set state = 'failed', failed_at = $2, lease_token = null, lease_until = null where id = $1",
        [claim.deliveryId, at.now],
      );
      return "failed";
    }
    await db.query(
      "update webhook_deliveries set next_attempt_at = $2, lease_token = null, lease_until = null where id = $1",
      [claim.deliveryId, new Date(at.now.getTime() + delay)],
    );
    return "retry";
  });
}
