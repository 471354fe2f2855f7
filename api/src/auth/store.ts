import type { Queryable } from "@countersign/core/store";

/** The account writes of sign-up, verification, password and e-mail changes. */

export async function insertUser(
  db: Queryable,
  email: string,
  passwordHash: string,
  name: string | null,
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    "insert into users (email, password_hash, name) values ($1, $2, $3) returning id",
    [email, passwordHash, name],
  );
  return rows[0]!.id;
}

export async function markEmailVerified(db: Queryable, userId: string): Promise<void> {
  await db.query("update users set email_verified_at = coalesce(email_verified_at, now()) where id = $1", [
    userId,
  ]);
}

export async function setPasswordHash(db: Queryable, userId: string, hash: string): Promise<void> {
  await db.query("update users set password_hash = $2 where id = $1", [userId, hash]);
}

/** A reset link reached the address, so the address is verified too. */
export async function resetPassword(db: Queryable, userId: string, hash: string): Promise<void> {
  await db.query(
    "update users set password_hash = $2, email_verified_at = coalesce(email_verified_at, now()) where id = $1",
    [userId, hash],
  );
}

/** Moves the account to an approved address (a unique violation when another account took it meanwhile). */
export async function setVerifiedEmail(db: Queryable, userId: string, email: string): Promise<void> {
  await db.query("update users set email = $2, email_verified_at = now() where id = $1", [userId, email]);
}

/** Uses up both links (approve and reject) of one e-mail change. */
export async function closeEmailChange(db: Queryable, changeId: string | null): Promise<void> {
  await db.query("update email_tokens set used_at = now() where change_id = $1 and used_at is null", [
    changeId,
  ]);
}

/** The organization a new session starts in: the person's oldest membership, if any. */
export async function firstOrganizationOf(db: Queryable, userId: string): Promise<string | null> {
  const { rows } = await db.query<{ organization_id: string }>(
    "select organization_id from memberships where user_id = $1 order by created_at limit 1",
    [userId],
  );
  return rows[0]?.organization_id ?? null;
}
