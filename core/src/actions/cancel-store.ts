import type { BodyOf, SignedObject } from "@countersign/protocol/evidence";
import type { Queryable } from "../store/queryable.js";

/** What a cancellation reads of its action, locked until the transaction ends. */
export interface CancellableAction {
  id: string;
  status: string;
  task_object_id: string;
  approval_request_id: string | null;
  delegation_object: SignedObject | null;
  /** The CANCELLATION already recorded for the action, if any (a replay is told apart by it). */
  cancellation_object_id: string | null;
}

const LOCK = `
  select pa.id, pa.status, pa.task_object_id, pa.approval_request_id, d.object as delegation_object,
         (select so.object_id from signed_objects so
           where so.protected_action_id = pa.id and so.type = 'CANCELLATION' limit 1) as cancellation_object_id
    from protected_actions pa
    left join delegations d on d.id = pa.delegation_id
   where pa.id = $1 and pa.organization_id = $2
     for update of pa`;

/** The action of this organization, locked for its cancellation; null when there is none. */
export async function lockForCancellation(
  db: Queryable,
  actionId: string,
  organizationId: string,
): Promise<CancellableAction | null> {
  const { rows } = await db.query<CancellableAction>(LOCK, [actionId, organizationId]);
  return rows[0] ?? null;
}

/** Stores the verified CANCELLATION beside the action's other signed objects. */
export async function insertCancellation(
  db: Queryable,
  organizationId: string,
  actionId: string,
  cancellation: SignedObject<BodyOf<"CANCELLATION">>,
): Promise<void> {
  await db.query(
    "insert into signed_objects (object_id, organization_id, protected_action_id, type, object) values ($1, $2, $3, 'CANCELLATION', $4)",
    [cancellation.id, organizationId, actionId, JSON.stringify(cancellation)],
  );
}

/** Closes the action's approval request, unless a person's decision already closed it otherwise. */
export async function cancelApprovalRequest(db: Queryable, approvalRequestId: string): Promise<void> {
  await db.query(
    "update approval_requests set status = 'cancelled' where id = $1 and status in ('pending', 'approved')",
    [approvalRequestId],
  );
}
