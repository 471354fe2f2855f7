import type { Queryable } from "@countersign/core/store";

/** This replica is alive now, with its version and the policy-language revisions it evaluates (SPEC 3.4). */
export async function saveInstanceReport(
  db: Queryable,
  instanceId: string,
  version: string,
  languageRevisions: number[],
): Promise<void> {
  await db.query(
    `insert into gateway_instances (instance_id, version, language_revisions) values ($1, $2, $3)
     on conflict (instance_id) do update set last_seen_at = now(), version = excluded.version, language_revisions = excluded.language_revisions`,
    [instanceId, version, languageRevisions],
  );
}
