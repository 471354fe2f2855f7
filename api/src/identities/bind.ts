import { bindPersonalIdentity, type Binding, type StoredIdentity } from "@countersign/core/identities";
import { inTransaction, type Pool } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";

/** Bind a personal identity whose key signed the person's challenge (SPEC 2.6), audited as `identity.bound`. */
export async function bindIdentity(pool: Pool, q: Binding & { actor: Actor }): Promise<StoredIdentity> {
  return inTransaction(pool, async (db) => {
    const i = await bindPersonalIdentity(db, {
      userId: q.userId,
      challengeId: q.challengeId,
      signature: q.signature,
      document: q.document,
    });
    await audit(db, {
      organizationId: null,
      action: "identity.bound",
      actor: q.actor,
      target: { type: "identity", id: i.kid },
    });
    return i;
  });
}
