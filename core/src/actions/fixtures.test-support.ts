/**
 * Tests only: put a protected action into a state no request could reach
 * quickly (its window already over, decided long ago, closed by hand), so
 * that what follows can be tested. Production code goes through the guarded
 * transitions of transitions.ts; this module is not exported by index.ts.
 */
import type { Queryable } from "../store/queryable.js";
import type { ActionStatus } from "./status.js";

type Shift = { expiresAt?: string; createdAt?: string };

/** Moves the action's expiry and/or decision time by a PostgreSQL interval from now ("-1 second", "40 days"). */
export async function shiftActionTimes(db: Queryable, actionId: string, shift: Shift): Promise<void> {
  if (shift.expiresAt !== undefined)
    await db.query("update protected_actions set expires_at = now() + $2::interval where id = $1", [
      actionId,
      shift.expiresAt,
    ]);
  if (shift.createdAt !== undefined)
    await db.query("update protected_actions set created_at = now() + $2::interval where id = $1", [
      actionId,
      shift.createdAt,
    ]);
}

/** Sets the status outright, as if something outside the test had closed the action. */
export async function forceActionStatus(
  db: Queryable,
  actionId: string,
  status: ActionStatus,
): Promise<void> {
  await db.query("update protected_actions set status = $2 where id = $1", [actionId, status]);
}

/** Links an approval request a fixture inserted to its action. */
export async function linkApprovalRequest(
  db: Queryable,
  actionId: string,
  approvalRequestId: string,
): Promise<void> {
  await db.query("update protected_actions set approval_request_id = $2 where id = $1", [
    actionId,
    approvalRequestId,
  ]);
}
