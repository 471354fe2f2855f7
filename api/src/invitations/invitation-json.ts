import type { Invitation } from "@countersign/protocol/wire";
import type { InvitationRow } from "./store.js";

export const invitationJson = (i: InvitationRow): Invitation => ({
  id: i.id,
  email: i.email,
  role: i.role,
  invited_by: i.invited_by,
  created_at: i.created_at.toISOString(),
  expires_at: i.expires_at.toISOString(),
});
