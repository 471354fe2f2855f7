import type { PolicyDocument } from "@countersign/protocol/policy";
import type { Queryable } from "@countersign/core/store";
import { VERSION_COLUMNS, type VersionRow } from "./store.js";
import type { VersionOrigin } from "./versions.js";

/**
 * The writes of a new policy version (versions.ts, insertVersion). Versions of one organization
 * are created one at a time: lockVersionUsage takes a transaction-scoped advisory lock before it
 * counts, so the limits of SPEC 8.3 are exact.
 */
export async function lockVersionUsage(
  db: Queryable,
  organizationId: string,
): Promise<{ n: number; bytes: number }> {
  await db.query("select pg_advisory_xact_lock(hashtext('policy_versions'), hashtext($1))", [organizationId]);
  const { rows } = await db.query<{ n: string; bytes: string }>(
    "select count(*) as n, coalesce(sum(document_size), 0) as bytes from policy_versions where organization_id = $1",
    [organizationId],
  );
  return { n: Number(rows[0]!.n), bytes: Number(rows[0]!.bytes) };
}

/** A draft of the policy with this digest, if one exists. */
export async function draftWithDigest(
  db: Queryable,
  policyId: string,
  digest: string,
): Promise<{ id: string; number: number } | undefined> {
  const { rows } = await db.query<{ id: string; number: number }>(
    "select id, number from policy_versions where policy_id = $1 and status = 'draft' and digest = $2 limit 1",
    [policyId, digest],
  );
  return rows[0];
}

/** Inserts the version with the policy's next number. */
export async function insertVersionRow(
  db: Queryable,
  v: {
    organizationId: string;
    policyId: string;
    document: PolicyDocument;
    size: number;
    digest: string;
    revision: 1 | 2;
    note: string | null;
    origin: VersionOrigin;
    sourceVersionId?: string | null;
    createdBy: string | null;
  },
): Promise<VersionRow> {
  const { rows } = await db.query<VersionRow>(
    `insert into policy_versions (policy_id, organization_id, number, document, document_size, digest, language_revision, note, origin, source_version_id, created_by_label)
     values ($1, $2, (select coalesce(max(number), 0) + 1 from policy_versions where policy_id = $1), $3, $4, $5, $6, $7, $8, $9, $10)
     returning ${VERSION_COLUMNS}`,
    [
      v.policyId,
      v.organizationId,
      JSON.stringify(v.document),
      v.size,
      v.digest,
      v.revision,
      v.note,
      v.origin,
      v.sourceVersionId ?? null,
      v.createdBy,
    ],
  );
  return rows[0]!;
}
