import type { Sha256Digest } from "../canonical/index.js";
import { identityDigest, type IdentityDocument } from "./identity.js";
import type { Kid } from "./kid.js";

/**
 * Equivocation: an identity's key signed two documents that cannot both be
 * its history. Only validly self-signed documents are passed here, so only
 * the key holder can cause it, and once seen it can never be undone: the
 * identity is permanently invalid (IDENTITY_EQUIVOCATION).
 *
 * Two documents conflict when
 *  - they have the same seq and different bodies (a fork), or
 *  - document seq n+1 names a prev other than the digest of document seq n, or
 *  - a document follows one whose status is replaced or revoked (both final), or
 *  - consecutive documents disagree on the actor type.
 */
export interface Equivocation {
  kid: Kid;
  seq: number;
  reason: "fork" | "broken_link" | "after_final" | "actor_type_changed";
  digests: Sha256Digest[];
}

export function findEquivocations(documents: readonly IdentityDocument[]): Equivocation[] {
  const byKid = new Map<Kid, Map<number, Map<Sha256Digest, IdentityDocument>>>();
  for (const doc of documents) {
    const bySeq = byKid.get(doc.body.kid) ?? new Map<number, Map<Sha256Digest, IdentityDocument>>();
    byKid.set(doc.body.kid, bySeq);
    const docs = bySeq.get(doc.body.seq) ?? new Map<Sha256Digest, IdentityDocument>();
    bySeq.set(doc.body.seq, docs);
    docs.set(identityDigest(doc), doc);
  }
  const found: Equivocation[] = [];
  for (const [kid, bySeq] of byKid) {
    for (const [seq, docs] of [...bySeq].sort((a, b) => a[0] - b[0])) {
      if (docs.size > 1) {
        found.push({ kid, seq, reason: "fork", digests: [...docs.keys()].sort() });
        continue;
      }
      const before = bySeq.get(seq - 1);
      if (!before || before.size !== 1) continue;
      const [[prevDigest, prev]] = [...before] as [[Sha256Digest, IdentityDocument]];
      const [[digest, doc]] = [...docs] as [[Sha256Digest, IdentityDocument]];
      const pair = [prevDigest, digest];
      if (doc.body.prev !== prevDigest) found.push({ kid, seq, reason: "broken_link", digests: pair });
      else if (prev.body.status !== "active") found.push({ kid, seq, reason: "after_final", digests: pair });
      else if (prev.body.actor_type !== doc.body.actor_type)
        found.push({ kid, seq, reason: "actor_type_changed", digests: pair });
    }
  }
  return found;
}

/** The KIDs that equivocated, sorted: what a verification reports in `equivocated_identities`. */
export function equivocatedKids(documents: readonly IdentityDocument[]): Kid[] {
  return [...new Set(findEquivocations(documents).map((e) => e.kid))].sort();
}
