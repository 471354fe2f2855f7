import type { Queryable } from "../store/queryable.js";

/** PostgreSQL channel on which a change of an action's state is announced, payload the action id. */
export const ACTION_CHANNEL = "countersign_actions";

/**
 * Wakes every replica's wait for the action (a person's decision, a cancellation). Sent inside
 * the change's transaction, so it is delivered at commit and a woken wait reads the change.
 */
export async function wakeWaiters(db: Queryable, actionId: string): Promise<void> {
  await db.query("select pg_notify($1, $2)", [ACTION_CHANNEL, actionId]);
}
