import type { SignedObject } from "@countersign/protocol/evidence";
import type { Queryable } from "../store/queryable.js";

const LOCK = `
  select ar.id, ar.status, ar.expires_at, ar.approver_kids, ar.decision_object_id, ar.protected_action_id,
         pa.status as action_status, pa.task_object_id, pa.proposal_object_id, pa.delegation_id, d.object as delegation_object,
         covered_by_supersession(pa.policy_id, pa.policy_version, pa.created_at, true) as superseded
    from approval_requests ar
    join protected_actions pa on pa.id = ar.protected_action_id
    left join delegations d on d.id = pa.delegation_id
   where ar.id = $1 and ar.organization_id = $2
     for update of ar, pa`;

/** An approval request with what deciding it reads of its action. */
export interface LockedApprovalRequest {
  id: string;
  status: string;
  expires_at: Date;
  approver_kids: string[];
  decision_object_id: string | null;
  protected_action_id: string;
  action_status: string;
  task_object_id: string;
  proposal_object_id: string;
  delegation_id: string | null;
  delegation_object: SignedObject | null;
  /** Covered by a rollback or stop (supersede_all) since it was opened. */
  superseded: boolean;
}

/**
 * The organization's approval request with its action, both locked until the transaction ends
 * (decide.ts reads the row); undefined when there is none.
 */
export async function lockApprovalRequest(
  db: Queryable,
  id: string,
  organizationId: string,
): Promise<LockedApprovalRequest | undefined> {
  const { rows } = await db.query<LockedApprovalRequest>(LOCK, [id, organizationId]);
  return rows[0];
}

/** The person's APPROVAL or REJECTION, stored beside the action's other signed objects (once). */
export async function insertDecisionObject(
  db: Queryable,
  organizationId: string,
  actionId: string,
  object: SignedObject,
): Promise<void> {
  await db.query(
    "insert into signed_objects (object_id, organization_id, protected_action_id, type, object) values ($1, $2, $3, $4, $5) on conflict do nothing",
    [object.id, organizationId, actionId, object.body.type, JSON.stringify(object)],
  );
}

/** The request decided: by whom, when, with which signed object. */
export async function recordRequestDecision(
  db: Queryable,
  id: string,
  status: "approved" | "rejected",
  now: Date,
  actor: string,
  objectId: string,
): Promise<void> {
  await db.query(
    "update approval_requests set status = $2, decided_at = $3, decided_by_kid = $4, decision_object_id = $5 where id = $1",
    [id, status, now, actor, objectId],
  );
}
