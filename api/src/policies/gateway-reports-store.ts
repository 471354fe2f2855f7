import type { Queryable } from "@countersign/core/store";

/**
 * What the language gate reads (language-gate.ts): how many Gateways reported within the last
 * `recentSeconds` (their `gateway_instances` rows), which of those lack revision 2, and whether
 * a decision of the organization in the last `olderMinutes` was made under an older revision.
 */
export async function gatewayReports(
  db: Queryable,
  organizationId: string,
  now: Date,
  recentSeconds: number,
  olderMinutes: number,
): Promise<{ recent: number; outdated: string[] | null; older_decisions: boolean }> {
  const { rows } = await db.query<{ recent: string; outdated: string[] | null; older_decisions: boolean }>(
    `select (select count(*) from gateway_instances where last_seen_at > $2::timestamptz - make_interval(secs => $3)) as recent,
            (select array_agg(instance_id order by instance_id) from gateway_instances
              where last_seen_at > $2::timestamptz - make_interval(secs => $3) and not (2 = any(language_revisions))) as outdated,
            exists (select 1 from protected_actions
                     where organization_id = $1 and created_at > $2::timestamptz - make_interval(mins => $4)
                       and gateway_language_revision < 2) as older_decisions`,
    [organizationId, now, recentSeconds, olderMinutes],
  );
  const r = rows[0]!;
  return { recent: Number(r.recent), outdated: r.outdated, older_decisions: r.older_decisions };
}
