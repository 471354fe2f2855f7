import type { Coverage } from "@countersign/core/actions";
import type { Queryable } from "@countersign/core/store";

/** Records the change so the worker closes what decisions in flight record after it. */
export async function recordSupersession(
  db: Queryable,
  c: Coverage,
  reason: "rollback" | "emergency" | "manual",
  closed: number,
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `insert into policy_supersessions (organization_id, policy_id, version_id, scope, reason, closed, last_run_at)
     values ($1, $2, $3, $4, $5, $6, now()) returning id`,
    [c.organizationId, c.policyId, c.versionId, c.scope, reason, closed],
  );
  return rows[0]!.id;
}
