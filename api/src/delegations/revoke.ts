import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction, type Pool } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
import { lockDelegation, revokeDelegation, type DelegationRow } from "./store.js";
import { verifiedRevocation } from "./verify.js";

/**
 * Revoke a delegation with a REVOCATION signed by the principal that signed it (SPEC 2.5), audited
 * as `delegation.revoked`; the next decision no longer finds it.
 */
export async function revokeDelegationBySignature(
  pool: Pool,
  q: { organizationId: string; delegationId: string; revocation: unknown; now: Date; actor: Actor },
): Promise<DelegationRow> {
  return inTransaction(pool, async (db) => {
    const d = await lockDelegation(db, q.organizationId, q.delegationId);
    if (d.revoked_at) throw new ServiceError("INVALID_STATE", "the delegation is already revoked");
    const rev = await verifiedRevocation(db, q.organizationId, d, q.revocation, q.now);
    const after = await revokeDelegation(db, d.id, rev, q.now);
    await audit(db, {
      organizationId: q.organizationId,
      action: "delegation.revoked",
      actor: q.actor,
      target: { type: "delegation", id: d.id },
      details: { agent_id: d.agent_id, revocation_object_id: rev.id },
    });
    return after;
  });
}
