import type { QueryResultRow } from "pg";
import type { Queryable } from "../store/queryable.js";

/**
 * The executing action longest past its deadline, locked, skipping those another process holds
 * (recover.ts closes it); undefined when there is none.
 */
export async function lockInterrupted(db: Queryable, now: Date): Promise<QueryResultRow | undefined> {
  const { rows } = await db.query(
    `select pa.id, pa.organization_id, pa.task_object_id, pa.proposal_object_id, pa.execution_object_id, pa.agent_id, pa.tool_name,
                pa.action, pa.environment, ag.name as agent_name, ar.decision_object_id, d.object as delegation_object
           from protected_actions pa
           join agents ag on ag.id = pa.agent_id
           left join approval_requests ar on ar.id = pa.approval_request_id
           left join delegations d on d.id = pa.delegation_id
          where pa.status = 'executing' and pa.execution_deadline < $1
          order by pa.execution_deadline limit 1
            for update of pa skip locked`,
    [now],
  );
  return rows[0];
}
