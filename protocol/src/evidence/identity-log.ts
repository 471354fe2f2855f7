import type { ActorType, IdentityDocument, IdentityStatus, IdentitySubject } from "./identity.js";
import { identityDigest, identityPublicKey, verifyIdentityDocument } from "./identity.js";
import { findEquivocations } from "./equivocation.js";
import type { Ed25519Verify } from "./ed25519.js";
import type { Kid } from "./kid.js";
import { defaultVerify } from "./sign.js";
import { timeOf } from "./fields.js";

/**
 * What a set of identity documents says about one KID: its key, actor type,
 * current subject and status, and from when it may no longer sign. Built
 * from verified documents only.
 */
export interface IdentityState {
  kid: Kid;
  publicKey: Uint8Array;
  actorType: ActorType;
  subject: IdentitySubject;
  status: IdentityStatus;
  /** issued_at of the first replaced/revoked document: objects signed at or after it are refused. */
  finalAt: string | null;
  replacedBy: Kid | null;
  documents: IdentityDocument[];
  /** seq 0..n all present: without the whole log, forks and links cannot be checked. */
  complete: boolean;
  equivocated: boolean;
}

export function identityStates(documents: readonly IdentityDocument[]): Map<Kid, IdentityState> {
  const equivocated = new Set(findEquivocations(documents).map((e) => e.kid));
  const byKid = new Map<Kid, IdentityDocument[]>();
  for (const doc of documents) byKid.set(doc.body.kid, [...(byKid.get(doc.body.kid) ?? []), doc]);
  const states = new Map<Kid, IdentityState>();
  for (const [kid, docs] of byKid) {
    const sorted = [...docs].sort((a, b) => a.body.seq - b.body.seq);
    const seqs = new Set(sorted.map((d) => d.body.seq));
    const last = sorted[sorted.length - 1]!;
    const final = sorted.find((d) => d.body.status !== "active");
    states.set(kid, {
      kid,
      publicKey: identityPublicKey(last),
      actorType: last.body.actor_type,
      subject: last.body.subject,
      status: last.body.status,
      finalAt: final?.body.issued_at ?? null,
      replacedBy: last.body.replaced_by,
      documents: sorted,
      complete: [...seqs].every((s, i) => s === i) && seqs.size === last.body.seq + 1,
      equivocated: equivocated.has(kid),
    });
  }
  return states;
}

/** Whether the identity could sign at `at`: not equivocated and not yet replaced or revoked. */
export function mayIdentitySign(state: IdentityState, at: string): boolean {
  return !state.equivocated && (state.finalAt === null || timeOf(at) < timeOf(state.finalAt));
}

export type AcceptOutcome =
  | { outcome: "accepted"; state: IdentityState }
  | { outcome: "duplicate"; state: IdentityState }
  | { outcome: "equivocation"; code: "IDENTITY_EQUIVOCATION"; message: string }
  | { outcome: "invalid"; code: "IDENTITY_INVALID"; message: string };

/**
 * For the Cloud API receiving an identity document (a new personal identity,
 * a replaced principal, a revocation): checks it against the documents
 * already stored for that KID. An equivocation answer means the caller must
 * mark the identity permanently invalid; the conflicting document is the proof.
 */
export function acceptIdentityDocument(
  stored: readonly IdentityDocument[],
  incoming: unknown,
  verify: Ed25519Verify = defaultVerify,
): AcceptOutcome {
  const checked = verifyIdentityDocument(incoming, verify);
  if (!checked.ok) return { outcome: "invalid", code: checked.code, message: checked.message };
  const doc = checked.document;
  const same = stored.filter((d) => d.body.kid === doc.body.kid);
  const digest = identityDigest(doc);
  const all = same.some((d) => identityDigest(d) === digest) ? same : [...same, doc];
  if (findEquivocations(all).length > 0) {
    return {
      outcome: "equivocation",
      code: "IDENTITY_EQUIVOCATION",
      message: "document conflicts with this identity's log",
    };
  }
  const next = same.reduce((n, d) => Math.max(n, d.body.seq + 1), 0);
  if (all.length === same.length)
    return { outcome: "duplicate", state: identityStates(all).get(doc.body.kid)! };
  if (doc.body.seq !== next) {
    return {
      outcome: "invalid",
      code: "IDENTITY_INVALID",
      message: `expected the document with seq ${next}`,
    };
  }
  return { outcome: "accepted", state: identityStates(all).get(doc.body.kid)! };
}
