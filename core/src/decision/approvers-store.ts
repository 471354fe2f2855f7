import type { QueryResult } from "pg";
import type { Queryable } from "../store/queryable.js";
import { statement } from "../store/statement.js";

const APPROVERS = statement(
  "approvers",
  `select m.user_id, (array_agg(i.kid order by i.created_at desc))[1:$3] as kids
     from memberships m
     join users u on u.id = m.user_id and u.disabled_at is null and u.deleted_at is null
     join identities i on i.user_id = m.user_id and i.kind = 'personal' and i.status = 'active'
    where m.organization_id = $1 and m.role = any($2::text[])
    group by m.user_id
    order by m.user_id`,
);

/**
 * The organization's enabled members holding one of `roles` with an active personal identity,
 * each with their `perMember` newest identities (approvers.ts decides what the rows mean).
 */
export function approverRows(
  db: Queryable,
  organizationId: string,
  roles: readonly string[],
  perMember: number,
): Promise<QueryResult<{ user_id: string; kids: string[] }>> {
  return db.query<{ user_id: string; kids: string[] }>(APPROVERS.with([organizationId, roles, perMember]));
}
