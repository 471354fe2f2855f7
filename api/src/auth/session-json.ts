import type { Session } from "@countersign/protocol/wire";
import { userJson, type UserRow } from "../accounts/users.js";

/** The session as answered by sign-in and GET /auth/session: never the session token itself. */
export function sessionJson(
  user: Pick<UserRow, "id" | "email" | "name" | "email_verified_at">,
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
