import type { Queryable } from "@countersign/core/store";

/** What the dry run reads beyond the decision context: a version by id, the month's usage, a policy's shadow version. */
export interface VersionRow {
  id: string;
  name: string;
  agent_disclosure: string;
  stopped: boolean;
  version_id: string;
  number: number;
  digest: string;
}

/** A version of any policy of the organization, with its policy. */
export async function readPolicyVersion(
  db: Queryable,
  organizationId: string,
  versionId: string,
): Promise<VersionRow | undefined> {
  const { rows } = await db.query<VersionRow>(
    `select p.id, p.name, p.agent_disclosure, p.emergency_stopped_at is not null as stopped, v.id as version_id, v.number, v.digest
       from policy_versions v join policies p on p.id = v.policy_id where v.id = $1 and v.organization_id = $2`,
    [versionId, organizationId],
  );
  return rows[0];
}

/** Protected actions recorded this UTC month by the organization. */
export async function actionsThisMonth(db: Queryable, organizationId: string): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    "select coalesce(sum(protected_actions), 0) as n from usage_counters where organization_id = $1 and month = date_trunc('month', now() at time zone 'utc')::date",
    [organizationId],
  );
  return Number(rows[0]!.n);
}

/** The shadow version of a policy, if it has one. */
export async function shadowVersionOf(
  db: Queryable,
  policyId: string,
): Promise<{ id: string; number: number; digest: string } | undefined> {
  const { rows } = await db.query<{ id: string; number: number; digest: string }>(
    "select v.id, v.number, v.digest from policies p join policy_versions v on v.id = p.shadow_version_id where p.id = $1",
    [policyId],
  );
  return rows[0];
}
