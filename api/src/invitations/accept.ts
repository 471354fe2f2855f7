import { ServiceError } from "@countersign/protocol/errors";
import { isPlan, type Plan } from "@countersign/core/plans";
import { inTransaction, type Pool } from "@countersign/core/store";
import type { Role } from "@countersign/protocol/wire";
import { tokenHash } from "../accounts/tokens.js";
import { audit, type Actor } from "../audit/record.js";
import { addMember, isMember } from "../members/store.js";
import { checkQuota } from "../orgs/quota.js";
import { lockInvitationByToken, markAccepted, seatsTaken } from "./store.js";

/**
 * Accept an invitation (SPEC 5.6): the signed-in invitee whose address it names joins with its
 * role, within the plan's member limit (the invitation's own seat is not counted twice); audited
 * as `invitation.accepted`. A used, revoked, expired or someone else's link changes nothing.
 */
export async function acceptInvitation(
  pool: Pool,
  defaultPlan: Plan,
  q: { token: string; userId: string; email: string; actor: Actor },
): Promise<{ organization_id: string; role: Role }> {
  return inTransaction(pool, async (db) => {
    const inv = await lockInvitationByToken(db, tokenHash(q.token));
    if (!inv || !inv.open) throw new ServiceError("INVITATION_INVALID", "this invitation is invalid");
    if (inv.expired) throw new ServiceError("INVITATION_EXPIRED", "this invitation has expired");
    if (inv.email.toLowerCase() !== q.email.toLowerCase()) {
      throw new ServiceError("INVITATION_EMAIL_MISMATCH", "this invitation is for another address");
    }
    if (await isMember(db, inv.organization_id, q.userId))
      throw new ServiceError("ALREADY_MEMBER", "you are already a member");
    checkQuota(
      isPlan(inv.plan) ? inv.plan : defaultPlan,
      "members",
      await seatsTaken(db, inv.organization_id, inv.id),
    );
    await addMember(db, inv.organization_id, q.userId, inv.role);
    await markAccepted(db, inv.id, q.userId);
    await audit(db, {
      organizationId: inv.organization_id,
      action: "invitation.accepted",
      actor: q.actor,
      target: { type: "user", id: q.userId },
      details: { invitation_id: inv.id, role: inv.role },
    });
    return { organization_id: inv.organization_id, role: inv.role };
  });
}
