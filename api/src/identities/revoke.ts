import { revokePersonalIdentity, type StoredIdentity } from "@countersign/core/identities";
import { inTransaction, type Pool } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";

/** Revoke one of the person's own identities, audited as `identity.revoked`; undefined when they have no such one. */
export async function revokeIdentity(
  pool: Pool,
  q: { userId: string; kid: string; actor: Actor },
): Promise<StoredIdentity | undefined> {
  return inTransaction(pool, async (db) => {
    const i = await revokePersonalIdentity(db, q.userId, q.kid);
    if (i)
      await audit(db, {
        organizationId: null,
        action: "identity.revoked",
        actor: q.actor,
        target: { type: "identity", id: i.kid },
      });
    return i;
  });
}
