import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction, type Pool } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
import { lockInvitation, revokeInvitation as markRevoked } from "./store.js";

/** Revoke an open invitation, audited as `invitation.revoked`; its link stops working. */
export async function revokeInvitation(
  pool: Pool,
  q: { organizationId: string; invitationId: string; actor: Actor },
): Promise<void> {
  await inTransaction(pool, async (db) => {
    const found = await lockInvitation(db, q.organizationId, q.invitationId);
    if (!found) throw new ServiceError("NOT_FOUND", "invitation not found");
    if (!found.open)
      throw new ServiceError("INVALID_STATE", "the invitation was already accepted or revoked");
    await markRevoked(db, q.invitationId);
    await audit(db, {
      organizationId: q.organizationId,
      action: "invitation.revoked",
      actor: q.actor,
      target: { type: "invitation", id: q.invitationId },
    });
  });
}
