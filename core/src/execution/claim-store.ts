import type { QueryResultRow } from "pg";
import type { Queryable } from "../store/queryable.js";
import { statement } from "../store/statement.js";

const LOCK = statement(
  "execution_claim_lock",
  `
  select pa.id, pa.organization_id, pa.status, pa.expires_at, pa.policy_id, pa.policy_version_id, pa.policy_version, pa.created_at, pa.relaxed, pa.binding_digest,
         pa.approval_request_id, pa.task_object_id, pa.proposal_object_id, pa.agent_id, pa.tool_name, pa.action, pa.environment,
         pa.amount, pa.currency, ag.name as agent_name,
         d.revoked_at, d.expires_at <= $2 as delegation_expired, d.object as delegation_object,
         p.emergency_stopped_at, p.active_version_id, ar.decision_object_id,
         t.enabled as tool_enabled, t.binding, t.authorized_binding, t.upstream_name,
         s.id as server_id, s.url, s.credential_encrypted, s.status as server_status, s.server_kid,
         w.ended_at as window_ended_at, w.ends_at <= $2 as window_over,
         covered_by_supersession(pa.policy_id, pa.policy_version, pa.created_at, false) as superseded,
         tobj.object as task_object, pobj.object as proposal_object, dobj.object as decision_object,
         (select coalesce(jsonb_object_agg(i.kid, i.document), '{}'::jsonb) from identities i
           where i.kid in (tobj.object->'body'->>'on_behalf_of', dobj.object->'body'->>'actor', s.server_kid)) as identity_logs
    from protected_actions pa
    join signed_objects tobj on tobj.object_id = pa.task_object_id
    join signed_objects pobj on pobj.object_id = pa.proposal_object_id
    join agents ag on ag.id = pa.agent_id
    join delegations d on d.id = pa.delegation_id
    join policies p on p.id = pa.policy_id
    left join approval_requests ar on ar.id = pa.approval_request_id
    left join signed_objects dobj on dobj.object_id = ar.decision_object_id
    left join tools t on t.id = pa.tool_id
    left join mcp_servers s on s.id = t.mcp_server_id
    left join observe_windows w on w.id = pa.observe_window_id
   where pa.id = $1
     for update of pa for share of d, p`,
);

/**
 * The action with everything its claim re-checks, locked: the action for update, its delegation
 * and policy for share (claim.ts reads the row); undefined when there is none.
 */
export async function lockForClaim(
  db: Queryable,
  actionId: string,
  now: Date,
): Promise<QueryResultRow | undefined> {
  const { rows } = await db.query(LOCK.with([actionId, now]));
  return rows[0];
}
