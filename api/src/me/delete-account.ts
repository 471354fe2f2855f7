import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction, type Pool } from "@countersign/core/store";
import { revokeCreatorAccess } from "../access/creator-revocations.js";
import { audit, type Actor } from "../audit/record.js";
import { deleteAccount as markDeleted, lockAndFindSoleOwnership } from "./store.js";

/**
 * Delete a person's own account (docs/access.md), once their password was checked: refused with
 * 409 LAST_OWNER while they are an organization's last owner. In one transaction the account is
 * marked deleted, its memberships (each audited `member.left`) and sessions end, and in every
 * organization its keys are revoked and its webhook endpoints disabled (`creator_deleted`).
 */
export async function deleteAccount(pool: Pool, q: { userId: string; actor: Actor }): Promise<void> {
  await inTransaction(pool, async (db) => {
    const organization_id = await lockAndFindSoleOwnership(db, q.userId);
    if (organization_id) {
      throw new ServiceError(
        "LAST_OWNER",
        "you are the last owner of an organization: make someone else owner or delete it first",
        { organization_id },
      );
    }
    const left = await markDeleted(db, q.userId);
    for (const m of left) {
      await audit(db, {
        organizationId: m.organization_id,
        action: "member.left",
        actor: q.actor,
        target: { type: "user", id: q.userId },
        details: { role: m.role, reason: "account_deleted" },
      });
    }
    await audit(db, {
      organizationId: null,
      action: "account.deleted",
      actor: q.actor,
      target: { type: "user", id: q.userId },
    });
    await revokeCreatorAccess(db, null, q.userId, "creator_deleted");
  });
}
