import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction, type Pool } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
import { lockKey, revokeKey, type KeyRow } from "./store.js";

/**
 * Revoke a key (SPEC 5.4), audited as `api_key.revoked`. `mayHandle` says whether the caller's role
 * handles keys of this kind: a management key is the Admins'; the check runs on the locked row.
 */
export async function revokeApiKey(
  pool: Pool,
  q: {
    organizationId: string;
    keyId: string;
    role: string | null;
    mayHandle: (kind: "gateway" | "management") => boolean;
    actor: Actor;
  },
): Promise<KeyRow> {
  return inTransaction(pool, async (db) => {
    const k = await lockKey(db, q.organizationId, q.keyId);
    if (!k) throw new ServiceError("NOT_FOUND", "key not found");
    if (!q.mayHandle(k.kind))
      throw new ServiceError("FORBIDDEN", "only owners and admins handle management keys", {
        permission: "admins",
        role: q.role,
      });
    if (k.revoked_at) throw new ServiceError("INVALID_STATE", "the key is already revoked");
    const after = await revokeKey(db, k.id);
    await audit(db, {
      organizationId: q.organizationId,
      action: "api_key.revoked",
      actor: q.actor,
      target: { type: "api_key", id: k.id },
      details: { reason: "revoked", kind: k.kind },
    });
    return after;
  });
}
