import type { QueryResult } from "pg";
import type { Queryable } from "../store/queryable.js";

const LOCK = `
  select pa.status, pa.agent_id, pa.tool_name, pa.action, pa.environment, pa.approval_request_id,
         pa.task_object_id, pa.proposal_object_id, ag.name as agent_name,
         d.revoked_at, d.expires_at <= now() as delegation_expired, d.object as delegation_object,
         p.emergency_stopped_at, ar.decision_object_id,
         (t.id is not null and t.enabled and t.authorized_binding = t.binding) as tool_ready,
         covered_by_supersession(pa.policy_id, pa.policy_version, pa.created_at, false) as superseded
    from protected_actions pa
    join agents ag on ag.id = pa.agent_id
    join delegations d on d.id = pa.delegation_id
    join policies p on p.id = pa.policy_id
    join approval_requests ar on ar.id = pa.approval_request_id
    left join tools t on t.id = pa.tool_id
   where pa.id = $1
     for update of pa for share of d, p`;

/**
 * The approved action with what its hand-out re-checks, under the locks an execution takes: the
 * action for update, its delegation and policy for share (hand-out.ts).
 */
export function lockApprovedAction(db: Queryable, actionId: string): Promise<QueryResult> {
  return db.query(LOCK, [actionId]);
}
