import { storedIdentityLogs } from "@countersign/core/evidence";
import { verifyBundle, type Kid, type VerificationResult } from "@countersign/protocol/evidence";
import type { Queryable } from "@countersign/core/store";
import { trustedIdentities } from "./store.js";

/**
 * Verifies a stored bundle the way an offline verifier would (SPEC 2.8), with
 * two things only the service knows: trust pinned to this installation's
 * Gateway identity and the organization's principals, and the stored identity
 * logs of every signer, so a bundle document conflicting with what we stored
 * shows as equivocation.
 */
export async function verifyStoredBundle(
  db: Queryable,
  organizationId: string,
  bundle: unknown,
  now: Date,
): Promise<VerificationResult> {
  const rows = await trustedIdentities(db, organizationId);
  const signers = kidsOf(bundle);
  const known = await storedIdentityLogs(db, signers);
  return verifyBundle(bundle, {
    now,
    knownIdentities: known,
    trust: {
      issuers: rows.filter((r) => r.kind === "gateway").map((r) => r.kid as Kid),
      principals: rows.filter((r) => r.kind === "principal").map((r) => r.kid as Kid),
    },
  });
}

/** KIDs of the identity documents a bundle carries (whatever its shape; the verifier judges the shape). */
function kidsOf(bundle: unknown): string[] {
  const docs = (bundle as { identities?: unknown })?.identities;
  if (!Array.isArray(docs)) return [];
  const kids = docs
    .map((d) => (d as { body?: { kid?: unknown } })?.body?.kid)
    .filter((k): k is string => typeof k === "string");
  return [...new Set(kids)];
}
