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

export interface AuditEntry {
  organizationId: string | null;
  action: string;
  actor: { type: string; id: string | null; label: string | null };
  target?: { type: string; id: string };
  details?: Record<string, unknown>;
}

/** Append one row to the audit log (the caller's transaction, when it has one). */
export async function insertAuditEntry(db: Queryable, e: AuditEntry): Promise<void> {
  await db.query(
    `insert into audit_log (organization_id, action, actor_type, actor_id, actor_label, target_type, target_id, details)
     values ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      e.organizationId,
      e.action,
      e.actor.type,
      e.actor.id,
      e.actor.label,
      e.target?.type ?? null,
      e.target?.id ?? null,
      e.details ?? {},
    ],
  );
}
