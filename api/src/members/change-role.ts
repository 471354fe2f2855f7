import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction, type Pool } from "@countersign/core/store";
import {
  disableCreatorWebhooks,
  keysLostByRole,
  losesWebhooks,
  revokeCreatorKeys,
} from "../access/creator-revocations.js";
import type { Role } from "../access/types.js";
import { audit, type Actor } from "../audit/record.js";
import { lastOwner } from "./last-owner.js";
import { lockMembers, setRole } from "./store.js";

/**
 * Change a member's role (owner changes: an owner only; never the last owner), audited as
 * `member.role_changed`. A person who loses the right to keys or webhooks loses the ones they made
 * (SPEC 5.4, 5.6), in the same transaction. The members are locked so the owner count is exact.
 */
export async function changeMemberRole(
  pool: Pool,
  q: { organizationId: string; userId: string; role: Role; callerRole: Role | null; actor: Actor },
): Promise<{ user_id: string; role: Role }> {
  return inTransaction(pool, async (db) => {
    const members = await lockMembers(db, q.organizationId);
    const current = members.find((m) => m.user_id === q.userId);
    if (!current) throw new ServiceError("NOT_FOUND", "member not found");
    if ((current.role === "owner" || q.role === "owner") && q.callerRole !== "owner") {
      throw new ServiceError("OWNER_REQUIRED", "only an owner grants or changes the owner role");
    }
    if (
      current.role === "owner" &&
      q.role !== "owner" &&
      members.filter((m) => m.role === "owner").length === 1
    )
      throw lastOwner();
    if (current.role !== q.role) {
      await setRole(db, q.organizationId, q.userId, q.role);
      await audit(db, {
        organizationId: q.organizationId,
        action: "member.role_changed",
        actor: q.actor,
        target: { type: "user", id: q.userId },
        details: { from: current.role, to: q.role },
      });
      const lost = keysLostByRole(q.role);
      if (lost) await revokeCreatorKeys(db, q.organizationId, q.userId, "creator_lost_role", lost);
      if (losesWebhooks(q.role))
        await disableCreatorWebhooks(db, q.organizationId, q.userId, "creator_lost_role");
    }
    return { user_id: q.userId, role: q.role };
  });
}
