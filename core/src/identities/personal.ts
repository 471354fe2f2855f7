import { randomBytes } from "node:crypto";
import { ServiceError } from "@countersign/protocol/errors";
import {
  fromBase64url,
  nodeVerify,
  verifyIdentityDocument,
  type IdentityDocument,
} from "@countersign/protocol/evidence";
import type { Queryable } from "../store/queryable.js";
import { storedIdentity, type StoredIdentity } from "./stored.js";

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
  const { rows } = await db.query<{ id: string }>(
    "insert into identity_challenges (user_id, challenge, created_at, expires_at) values ($1, $2, $3, $4) returning id",
    [userId, challenge, now, expires],
  );
  return { id: rows[0]!.id, challenge, expires_at: expires.toISOString() };
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
  await db.query("select 1 from users where id = $1 for update", [b.userId]);
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

  const { rows } = await db.query<{ challenge: string; expired: boolean; used_at: Date | null }>(
    "select challenge, expires_at <= $3 as expired, used_at from identity_challenges where id = $1 and user_id = $2 for update",
    [b.challengeId, b.userId, now],
  );
  const c = rows[0];
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
  const { rows: n } = await db.query<{ n: number }>(
    "select count(*)::int as n from identities where user_id = $1 and kind = 'personal' and status = 'active'",
    [b.userId],
  );
  if (n[0]!.n >= MAX_PERSONAL_IDENTITIES) {
    throw new ServiceError(
      "CONFLICT",
      `at most ${MAX_PERSONAL_IDENTITIES} personal identities are bound at a time; revoke one first`,
      { reason: "TOO_MANY_IDENTITIES" },
    );
  }
  await db.query("update identity_challenges set used_at = $2 where id = $1", [b.challengeId, now]);
  await db.query(
    "insert into identities (kid, kind, user_id, public_key, document, created_at) values ($1, 'personal', $2, $3, $4, $5)",
    [doc.body.kid, b.userId, doc.body.public_key, JSON.stringify([doc]), now],
  );
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
  const { rows } = await db.query(
    "update identities set status = 'revoked', retired_at = now() where kid = $1 and user_id = $2 and kind = 'personal' and status = 'active' returning kid",
    [kid, userId],
  );
  if (!rows[0]) {
    const existing = await storedIdentity(db, kid);
    if (existing?.userId === userId && existing.kind === "personal")
      throw new ServiceError("INVALID_STATE", `this identity is already ${existing.status}`);
    return undefined;
  }
  return storedIdentity(db, kid);
}
