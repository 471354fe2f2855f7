import type { Queryable } from "../store/queryable.js";
import { OPEN_STATUSES } from "./status.js";

/**
 * Columns of operational data other parts may keep beside the decision
 * (call arguments, stored upstream results, error details). Cleared when the
 * column exists in this schema; the decision, status, digests and ids stay.
 */
const CLEARED_ACTION_COLUMNS = ["arguments", "result", "error_detail"] as const;

async function clearedColumns(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ column_name: string }>(
    "select column_name from information_schema.columns where table_schema = current_schema() and table_name = 'protected_actions' and column_name = any($1::text[])",
    [CLEARED_ACTION_COLUMNS],
  );
  return rows.map((r) => r.column_name);
}

/**
 * Marks ended actions' evidence deleted by retention (SPEC 8.7) and clears the call data kept
 * beside them. Only actions no longer open and not marked yet change; returns how many did.
 */
export async function markEvidenceDeleted(db: Queryable, ids: string[], now: Date): Promise<number> {
  // Names from the fixed list above, never from input.
  const extra = (await clearedColumns(db)).map((c) => `, ${c} = null`).join("");
  const done = await db.query(
    `update protected_actions set evidence_deleted_at = $2${extra}
      where id = any($1::uuid[]) and evidence_deleted_at is null and status <> all($3::text[])`,
    [ids, now, OPEN_STATUSES],
  );
  return done.rowCount ?? 0;
}
