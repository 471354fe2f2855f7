import { ServiceError } from "@countersign/protocol/errors";
import { canonicalJson } from "@countersign/protocol/canonical";
import {
  policyInvalidError,
  validatePolicy,
  type LintResult,
  type PolicyDocument,
} from "@countersign/protocol/policy";
import type { Queryable } from "@countersign/core/store";
import type { VersionRow } from "./store.js";
import { draftWithDigest, insertVersionRow, lockVersionUsage } from "./version-store.js";

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
  const size = Buffer.byteLength(canonicalJson(v.document));
  const { n, bytes } = await lockVersionUsage(db, v.organizationId);
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
    const same = await draftWithDigest(db, v.policyId, v.digest);
    if (same) {
      throw new ServiceError("DRAFT_EXISTS", `draft version ${same.number} already has this document`, {
        version_id: same.id,
        number: same.number,
      });
    }
  }
  return insertVersionRow(db, { ...v, size });
}
