import { createHmac } from "node:crypto";
import type { Queryable } from "@countersign/core/store";
import { newToken, tokenHash } from "../accounts/tokens.js";

/** SPEC 8.4: a session ends 12 hours after its last use and 7 days after sign-in. */
export const SESSION_IDLE_SECONDS = 12 * 3600;
export const SESSION_ABSOLUTE_SECONDS = 7 * 24 * 3600;
/** last_seen_at is written at most once a minute: enough for a 12-hour idle limit. */
const TOUCH_EVERY_SECONDS = 60;

export interface SessionRow {
  id: string;
  userId: string;
  email: string;
  emailVerified: boolean;
  currentOrganizationId: string | null;
  expiresAt: Date;
  idleExpiresAt: Date;
}

/**
 * The csrf_token of a session (SPEC 2.11): an HMAC of the session token under
 * the installation secret, so it is stable for the session, never stored, and
 * useless without the cookie it belongs to.
 */
export function csrfTokenOf(hashKey: Buffer, sessionToken: string): string {
  return createHmac("sha256", hashKey).update(`csrf:${sessionToken}`).digest("base64url");
}

export async function createSession(
  db: Queryable,
  userId: string,
  currentOrganizationId: string | null,
): Promise<{ token: string; row: SessionRow }> {
  const token = newToken();
  const { rows } = await db.query<{ id: string }>(
    `insert into sessions (token_hash, user_id, current_organization_id, expires_at)
     values ($1, $2, $3, now() + make_interval(secs => $4)) returning id`,
    [tokenHash(token), userId, currentOrganizationId, SESSION_ABSOLUTE_SECONDS],
  );
  const row = await findSession(db, token);
  if (!row || row.id !== rows[0]!.id) throw new Error("session vanished after creation");
  return { token, row };
}

/** The live session of a cookie token, touched; undefined when unknown, idle too long or past 7 days. */
export async function findSession(db: Queryable, token: string): Promise<SessionRow | undefined> {
  const { rows } = await db.query<{
    id: string;
    user_id: string;
    email: string;
    verified: boolean;
    current_organization_id: string | null;
    expires_at: Date;
    idle_expires_at: Date;
  }>(
    `with s as (
       update sessions s set last_seen_at = case when s.last_seen_at < now() - make_interval(secs => $3) then now() else s.last_seen_at end
         from users u
        where s.token_hash = $1 and u.id = s.user_id and u.disabled_at is null and u.deleted_at is null
          and s.expires_at > now() and s.last_seen_at > now() - make_interval(secs => $2)
        returning s.*, u.email, u.email_verified_at is not null as verified)
     select id, user_id, email, verified, current_organization_id, expires_at,
            least(expires_at, last_seen_at + make_interval(secs => $2)) as idle_expires_at from s`,
    [tokenHash(token), SESSION_IDLE_SECONDS, TOUCH_EVERY_SECONDS],
  );
  const r = rows[0];
  if (!r) return undefined;
  return {
    id: r.id,
    userId: r.user_id,
    email: r.email,
    emailVerified: r.verified,
    currentOrganizationId: r.current_organization_id,
    expiresAt: r.expires_at,
    idleExpiresAt: r.idle_expires_at,
  };
}

export async function deleteSession(db: Queryable, id: string): Promise<void> {
  await db.query("delete from sessions where id = $1", [id]);
}

/** After a password change or reset every other browser signs in again. */
export async function deleteOtherSessions(
  db: Queryable,
  userId: string,
  keepSessionId: string | null,
): Promise<void> {
  await db.query("delete from sessions where user_id = $1 and id is distinct from $2", [
    userId,
    keepSessionId,
  ]);
}

/** The organization the session works in from now on. */
export async function setCurrentOrganization(db: Queryable, sessionId: string, orgId: string): Promise<void> {
  await db.query("update sessions set current_organization_id = $2 where id = $1", [sessionId, orgId]);
}
