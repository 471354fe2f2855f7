import { ServiceError } from "@countersign/protocol/errors";
import type { Queryable } from "@countersign/core/store";
import { newToken, tokenHash } from "./tokens.js";

export type EmailTokenPurpose = "verify" | "reset" | "email_change_approve" | "email_change_reject";

/** How long each link works. */
export const TOKEN_TTL_SECONDS: Record<EmailTokenPurpose, number> = {
  verify: 24 * 3600,
  reset: 3600,
  email_change_approve: 24 * 3600,
  email_change_reject: 24 * 3600,
};

export interface EmailTokenRow {
  user_id: string;
  new_email: string | null;
  change_id: string | null;
}

/** A new link for a person; earlier unused links of the same purpose stop working ("replaced"). */
export async function issueEmailToken(
  db: Queryable,
  userId: string,
  purpose: EmailTokenPurpose,
  extra: { newEmail?: string; changeId?: string } = {},
): Promise<string> {
  await db.query(
    "update email_tokens set used_at = now() where user_id = $1 and purpose = $2 and used_at is null",
    [userId, purpose],
  );
  const token = newToken();
  await db.query(
    `insert into email_tokens (token_hash, purpose, user_id, new_email, change_id, expires_at)
     values ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))`,
    [
      tokenHash(token),
      purpose,
      userId,
      extra.newEmail ?? null,
      extra.changeId ?? null,
      TOKEN_TTL_SECONDS[purpose],
    ],
  );
  return token;
}

const invalid = () =>
  new ServiceError("INVALID_OR_EXPIRED_TOKEN", "this link is invalid, used, replaced or expired");

/** A usable link's row without using it up (checks that may refuse come first). */
export async function peekEmailToken(
  db: Queryable,
  token: string,
  purpose: EmailTokenPurpose,
): Promise<EmailTokenRow> {
  const { rows } = await db.query<EmailTokenRow>(
    `select user_id, new_email, change_id from email_tokens
      where token_hash = $1 and purpose = $2 and used_at is null and expires_at > now()`,
    [tokenHash(token), purpose],
  );
  if (!rows[0]) throw invalid();
  return rows[0];
}

/** Use a link up, once: a second use (or a concurrent one) finds it used. */
export async function consumeEmailToken(
  db: Queryable,
  token: string,
  purpose: EmailTokenPurpose,
): Promise<EmailTokenRow> {
  const { rows } = await db.query<EmailTokenRow>(
    `update email_tokens set used_at = now()
      where token_hash = $1 and purpose = $2 and used_at is null and expires_at > now()
      returning user_id, new_email, change_id`,
    [tokenHash(token), purpose],
  );
  if (!rows[0]) throw invalid();
  return rows[0];
}
