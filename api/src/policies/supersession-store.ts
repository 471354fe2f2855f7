import type { Coverage, SupersedeScope } from "@countersign/core/actions";
import type { Queryable } from "@countersign/core/store";

/**
 * Supersessions (`policy_supersessions`): a change that closes covered open actions, recorded so
 * the supersede worker closes what decisions in flight record after it.
 */

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

/** An open supersession the worker works on; `old` once past the grace period. */
export interface SupersessionRow {
  id: string;
  organization_id: string;
  policy_id: string;
  version_id: string | null;
  scope: SupersedeScope;
  old: boolean;
}

/** Claims the open supersession run longest ago, skipping those another process holds. */
export async function claimSupersession(
  db: Queryable,
  graceSeconds: number,
): Promise<SupersessionRow | undefined> {
  const { rows } = await db.query<SupersessionRow>(
    `select id, organization_id, policy_id, version_id, scope, created_at < now() - make_interval(secs => $1) as old
       from policy_supersessions
      where completed_at is null
      order by last_run_at nulls first, created_at
      limit 1 for update skip locked`,
    [graceSeconds],
  );
  return rows[0];
}

/** Counts a pass's closed actions; a pass past the grace period that closed nothing completes it. */
export async function recordSupersedePass(db: Queryable, s: SupersessionRow, closed: number): Promise<void> {
  await db.query(
    `update policy_supersessions set closed = closed + $2, last_run_at = now(),
            completed_at = case when $2 = 0 and $3 then now() end
      where id = $1`,
    [s.id, closed, s.old],
  );
}
