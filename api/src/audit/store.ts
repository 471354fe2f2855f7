import type { Queryable } from "@countersign/core/store";

export interface AuditRow {
  id: string;
  action: string;
  actor_type: string;
  actor_id: string | null;
  actor_label: string | null;
  target_type: string | null;
  target_id: string | null;
  details: Record<string, unknown>;
  created_at: Date;
}

/** One page (limit + 1 rows) of the organization's audit log, newest first, optionally one action. */
export async function listAudit(
  db: Queryable,
  orgId: string,
  action: string | null,
  beforeId: string | null,
  limit: number,
): Promise<AuditRow[]> {
  const { rows } = await db.query<AuditRow>(
    `select id::text, action, actor_type, actor_id, actor_label, target_type, target_id, details, created_at
       from audit_log where organization_id = $1 and ($2::text is null or action = $2) and ($3::bigint is null or id < $3::bigint)
      order by id desc limit $4`,
    [orgId, action, beforeId, limit + 1],
  );
  return rows;
}
