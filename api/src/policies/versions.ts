import { ServiceError } from "@countersign/protocol/errors";
import { canonicalJson } from "@countersign/protocol/canonical";
import {
  policyInvalidError,
  validatePolicy,
  type LintResult,
  type PolicyDocument,
} from "@countersign/protocol/policy";
import type { Queryable } from "@countersign/core/store";
import { VERSION_COLUMNS, type VersionRow } from "./store.js";

/** SPEC 8.3: 5000 versions and 64 MiB of documents per organization. */
export const versionLimits = { versions: 5000, bytes: 64 * 1024 * 1024 } as const;

export type VersionOrigin = "document" | "template" | "require_approval_copy" | "rollback";

/** Validates a submitted document: 422 POLICY_INVALID with `details.issues`, or the parsed document. */
export function validDocument(input: unknown): {
  document: PolicyDocument;
  digest: string;
  revision: 1 | 2;
  lint: LintResult;
} {
  const v = validatePolicy(input);
  if (!v.ok) throw policyInvalidError(v.issues);
  return { document: v.document, digest: v.digest, revision: v.revision, lint: v.lint };
}

/**
 * Adds a version to a policy (never deleted, never changed). Versions of one
 * organization are created one at a time (an advisory lock) so the limits of
 * SPEC 8.3 are exact. A draft identical to the new document (same digest) is
 * refused 409 DRAFT_EXISTS: there is nothing new to review. Rollback copies
 * skip that check: the copy of a superseded version is the point.
 */
export async function insertVersion(
  db: Queryable,
  v: {
    organizationId: string;
    policyId: string;
    document: PolicyDocument;
    digest: string;
    revision: 1 | 2;
    note: string | null;
    origin: VersionOrigin;
    sourceVersionId?: string | null;
    createdBy: string | null;
  },
): Promise<VersionRow> {
  await db.query("select pg_advisory_xact_lock(hashtext('policy_versions'), hashtext($1))", [
    v.organizationId,
  ]);
  const size = Buffer.byteLength(canonicalJson(v.document));
  const { rows: usage } = await db.query<{ n: string; bytes: string }>(
    "select count(*) as n, coalesce(sum(document_size), 0) as bytes from policy_versions where organization_id = $1",
    [v.organizationId],
  );
  const n = Number(usage[0]!.n);
  const bytes = Number(usage[0]!.bytes);
  if (n + 1 > versionLimits.versions || bytes + size > versionLimits.bytes) {
    throw new ServiceError(
      "POLICY_VERSION_LIMIT",
      "the organization has reached the limit of 5000 policy versions and 64 MiB of documents",
      {
        versions: n,
        bytes,
        limit_versions: versionLimits.versions,
        limit_bytes: versionLimits.bytes,
      },
    );
  }
  if (v.origin !== "rollback") {
    const { rows: same } = await db.query<{ id: string; number: number }>(
      "select id, number from policy_versions where policy_id = $1 and status = 'draft' and digest = $2 limit 1",
      [v.policyId, v.digest],
    );
    if (same[0]) {
      throw new ServiceError("DRAFT_EXISTS", `draft version ${same[0].number} already has this document`, {
        version_id: same[0].id,
        number: same[0].number,
      });
    }
  }
  const { rows } = await db.query<VersionRow>(
    `insert into policy_versions (policy_id, organization_id, number, document, document_size, digest, language_revision, note, origin, source_version_id, created_by_label)
     values ($1, $2, (select coalesce(max(number), 0) + 1 from policy_versions where policy_id = $1), $3, $4, $5, $6, $7, $8, $9, $10)
     returning ${VERSION_COLUMNS}`,
    [
      v.policyId,
      v.organizationId,
      JSON.stringify(v.document),
      size,
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
