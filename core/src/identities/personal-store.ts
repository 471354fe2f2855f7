import type { IdentityDocument } from "@countersign/protocol/evidence";
import type { Queryable } from "../store/queryable.js";

/** A new possession challenge of a person; its id. */
export async function insertChallenge(
  db: Queryable,
  userId: string,
  challenge: string,
  now: Date,
  expires: Date,
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    "insert into identity_challenges (user_id, challenge, created_at, expires_at) values ($1, $2, $3, $4) returning id",
    [userId, challenge, now, expires],
  );
  return rows[0]!.id;
}

/** Serializes one person's bindings (the count of 5 is exact under this lock). */
export async function lockUser(db: Queryable, userId: string): Promise<void> {
  await db.query("select 1 from users where id = $1 for update", [userId]);
}

/** The person's challenge, locked until the transaction ends; undefined when it is not theirs. */
export async function lockChallenge(
  db: Queryable,
  challengeId: string,
  userId: string,
  now: Date,
): Promise<{ challenge: string; expired: boolean; used_at: Date | null } | undefined> {
  const { rows } = await db.query<{ challenge: string; expired: boolean; used_at: Date | null }>(
    "select challenge, expires_at <= $3 as expired, used_at from identity_challenges where id = $1 and user_id = $2 for update",
    [challengeId, userId, now],
  );
  return rows[0];
}

/** How many personal identities the person has active. */
export async function activePersonalCount(db: Queryable, userId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    "select count(*)::int as n from identities where user_id = $1 and kind = 'personal' and status = 'active'",
    [userId],
  );
  return rows[0]!.n;
}

/** The challenge is used up: a binding succeeded with it. */
export async function useChallenge(db: Queryable, challengeId: string, now: Date): Promise<void> {
  await db.query("update identity_challenges set used_at = $2 where id = $1", [challengeId, now]);
}

/** A personal identity bound to the person, its log the one genesis document. */
export async function insertPersonalIdentity(
  db: Queryable,
  userId: string,
  doc: IdentityDocument,
  now: Date,
): Promise<void> {
  await db.query(
    "insert into identities (kid, kind, user_id, public_key, document, created_at) values ($1, 'personal', $2, $3, $4, $5)",
    [doc.body.kid, userId, doc.body.public_key, JSON.stringify([doc]), now],
  );
}

/** Revokes the person's active personal identity of `kid`; false when there is none. */
export async function revokeActivePersonal(db: Queryable, userId: string, kid: string): Promise<boolean> {
  const { rows } = await db.query(
    "update identities set status = 'revoked', retired_at = now() where kid = $1 and user_id = $2 and kind = 'personal' and status = 'active' returning kid",
    [kid, userId],
  );
  return rows.length > 0;
}
