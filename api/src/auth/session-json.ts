import type { Session } from "@countersign/protocol/wire";
import type { UserRow } from "../accounts/users-store.js";

type UserShown = Pick<UserRow, "id" | "email" | "name" | "email_verified_at" | "approval_emails">;

/** The person as the session answer shows them (never the password hash or the account's state). */
export function userJson(u: UserShown) {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    email_verified: u.email_verified_at !== null,
    approval_emails: u.approval_emails,
  };
}

/** The session as answered by sign-in and GET /auth/session: never the session token itself. */
export function sessionJson(
  user: UserShown,
  s: { currentOrganizationId: string | null; expiresAt: Date; idleExpiresAt: Date },
  csrfToken: string,
): Session {
  return {
    user: userJson(user),
    csrf_token: csrfToken,
    current_organization_id: s.currentOrganizationId,
    expires_at: s.expiresAt.toISOString(),
    idle_expires_at: s.idleExpiresAt.toISOString(),
  };
}
