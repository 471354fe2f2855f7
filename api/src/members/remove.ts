import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction, type Pool } from "@countersign/core/store";
import { revokeCreatorAccess } from "../access/creator-revocations.js";
import type { Role } from "../access/types.js";
import { audit, type Actor } from "../audit/record.js";
import { isAdmin } from "../http/shared.js";
import { lastOwner } from "./last-owner.js";
import { lockMembers, removeMember as deleteMembership } from "./store.js";

/**
 * Remove a member, or leave (`self`): others are removed by admins, an owner by an owner only, and
 * never the last owner. Audited as `member.left` or `member.removed`; the person's keys and webhook
 * endpoints in the organization go with them (SPEC 5.4).
 */
export async function removeMember(
  pool: Pool,
  q: { organizationId: string; userId: string; self: boolean; callerRole: Role | null; actor: Actor },
): Promise<void> {
  await inTransaction(pool, async (db) => {
    const members = await lockMembers(db, q.organizationId);
    const current = members.find((m) => m.user_id === q.userId);
    if (!current) throw new ServiceError("NOT_FOUND", "member not found");
    if (!q.self && !isAdmin(q.callerRole))
      throw new ServiceError("FORBIDDEN", "only owners and admins remove others", {
        permission: "admins",
        role: q.callerRole,
      });
    if (!q.self && current.role === "owner" && q.callerRole !== "owner")
      throw new ServiceError("OWNER_REQUIRED", "only an owner removes an owner");
    if (current.role === "owner" && members.filter((m) => m.role === "owner").length === 1) throw lastOwner();
    await deleteMembership(db, q.organizationId, q.userId);
    await audit(db, {
      organizationId: q.organizationId,
      action: q.self ? "member.left" : "member.removed",
      actor: q.actor,
      target: { type: "user", id: q.userId },
      details: { role: current.role },
    });
    await revokeCreatorAccess(db, q.organizationId, q.userId, q.self ? "creator_left" : "creator_removed");
  });
}
