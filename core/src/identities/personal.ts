import { randomBytes } from "node:crypto";
import { ServiceError } from "@countersign/protocol/errors";
import {
  fromBase64url,
  nodeVerify,
  verifyIdentityDocument,
  type IdentityDocument,
} from "@countersign/protocol/evidence";
import type { Queryable } from "../store/queryable.js";
import { storedIdentity, type StoredIdentity } from "./identity-store.js";
import {
  activePersonalCount,
  insertChallenge,
  insertPersonalIdentity,
  lockChallenge,
  lockUser,
  revokeActivePersonal,
  useChallenge,
} from "./personal-store.js";

/** SPEC 8.5: at most 5 personal identities bound to a person at a time. */
export const MAX_PERSONAL_IDENTITIES = 5;
/** A challenge is answered within minutes, from the browser that asked for it. */
export const CHALLENGE_TTL_SECONDS = 600;

/**
 * The bytes a person signs with the new personal key to prove possession:
 * a fixed label, then the challenge. The label keeps a challenge signature
 * from ever being mistaken for an evidence object (those sign canonical JSON).
 */
export const challengeMessage = (challenge: string): Uint8Array =>
  new TextEncoder().encode(`countersign-identity-challenge:${challenge}`);

export async function createChallenge(
  db: Queryable,
  userId: string,
  now = new Date(),
): Promise<{ id: string; challenge: string; expires_at: string }> {
  const challenge = randomBytes(32).toString("base64url");
  const expires = new Date(now.getTime() + CHALLENGE_TTL_SECONDS * 1000);
  const id = await insertChallenge(db, userId, challenge, now, expires);
  return { id, challenge, expires_at: expires.toISOString() };
}

export interface Binding {
  userId: string;
  challengeId: string;
  /** base64url Ed25519 signature of challengeMessage(challenge) by the identity's key. */
  signature: string;
  document: unknown;
  now?: Date;
}

/**
 * Binds a personal identity to a person (SPEC 2.1, 8.5). Call inside a
 * transaction; every refusal throws before anything is written, and the
 * challenge is used up only by a successful binding.
 */
export async function bindPersonalIdentity(db: Queryable, b: Binding): Promise<StoredIdentity> {
  const now = b.now ?? new Date();
  // Serialize one person's bindings so the count of 5 is exact.
  await lockUser(db, b.userId);
  const v = verifyIdentityDocument(b.document);
  if (!v.ok) throw new ServiceError("IDENTITY_INVALID", v.message);
  const doc: IdentityDocument = v.document;
  if (doc.body.actor_type !== "person")
    throw new ServiceError(
      "IDENTITY_WRONG_ACTOR_TYPE",
      `a personal identity has actor_type person, not ${doc.body.actor_type}`,
    );
  if (doc.body.seq !== 0 || doc.body.status !== "active" || doc.body.replaces !== null) {
    throw new ServiceError(
      "IDENTITY_INVALID",
      "a personal identity is bound with its first document (seq 0, active, replacing nothing)",
    );
  }
  if (doc.body.subject.id !== b.userId)
    throw new ServiceError("IDENTITY_INVALID", "the document's subject.id is not your user id");

  const c = await lockChallenge(db, b.challengeId, b.userId, now);
  if (!c || c.used_at || c.expired)
    throw new ServiceError(
      "CHALLENGE_INVALID",
      "the challenge is unknown, used or expired; ask for a new one",
    );
  const signature = fromBase64url(b.signature);
  const key = fromBase64url(doc.body.public_key)!;
  if (!signature || !nodeVerify(key, challengeMessage(c.challenge), signature)) {
    throw new ServiceError(
      "CHALLENGE_INVALID",
      "the challenge signature does not verify with the document's key",
    );
  }

  // A KID is bound once, ever: a revoked identity is never bound again.
  const existing = await storedIdentity(db, doc.body.kid);
  if (existing)
    throw new ServiceError(
      "IDENTITY_ALREADY_BOUND",
      existing.status === "revoked"
        ? "this identity was revoked and is never bound again"
        : "this identity is already bound",
    );
  if ((await activePersonalCount(db, b.userId)) >= MAX_PERSONAL_IDENTITIES) {
    throw new ServiceError(
      "CONFLICT",
      `at most ${MAX_PERSONAL_IDENTITIES} personal identities are bound at a time; revoke one first`,
      { reason: "TOO_MANY_IDENTITIES" },
    );
  }
  await useChallenge(db, b.challengeId, now);
  await insertPersonalIdentity(db, b.userId, doc, now);
  return (await storedIdentity(db, doc.body.kid))!;
}

/**
 * A person revokes one of their identities: it signs no more approvals from
 * now on and is never bound again. Answers undefined for a KID that is not
 * theirs (the route's 404).
 */
export async function revokePersonalIdentity(
  db: Queryable,
  userId: string,
  kid: string,
): Promise<StoredIdentity | undefined> {
  if (!(await revokeActivePersonal(db, userId, kid))) {
    const existing = await storedIdentity(db, kid);
    if (existing?.userId === userId && existing.kind === "personal")
      throw new ServiceError("INVALID_STATE", `this identity is already ${existing.status}`);
    return undefined;
  }
  return storedIdentity(db, kid);
}
