import type { Queryable } from "../store/queryable.js";

/**
 * Closes a pending approval whose request ran out (SPEC 3.2: "closed without
 * running"), at the moment someone looks at it. Conditional on the states,
 * so a concurrent decision by a person wins or loses cleanly.
 */
export async function expireLapsedApproval(db: Queryable, actionId: string): Promise<void> {
  await db.query(
    `with lapsed as (
       update approval_requests set status = 'expired'
        where protected_action_id = $1 and status = 'pending' and expires_at <= now()
       returning protected_action_id)
     update protected_actions set status = 'expired', decision_code = 'APPROVAL_EXPIRED',
            decision_detail = 'the approval request expired before anyone decided; a new call gets a new decision', updated_at = now()
      where id in (select protected_action_id from lapsed) and status = 'pending_approval'`,
    [actionId],
  );
}
