import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction, type Pool } from "@countersign/core/store";
import { readAgent } from "../agents/store.js";
import { audit, type Actor } from "../audit/record.js";
import { countActiveDelegations, insertDelegation, type DelegationRow } from "./store.js";
import { verifiedDelegation } from "./verify.js";

/** SPEC 2.5, 8.5. */
export const MAX_ACTIVE_DELEGATIONS = 100;

/**
 * Store a DELEGATION the organization principal signed in the submitter's browser (SPEC 2.5), once
 * verified, audited as `delegation.created`. The agent's row is locked so its count of active
 * delegations is exact.
 */
export async function createDelegation(
  pool: Pool,
  q: { organizationId: string; agentId: string; delegation: unknown; now: Date; actor: Actor },
): Promise<DelegationRow> {
  return inTransaction(pool, async (db) => {
    const agent = await readAgent(db, q.organizationId, q.agentId, true);
    const d = await verifiedDelegation(db, q.organizationId, agent.id, q.delegation, q.now);
    if ((await countActiveDelegations(db, agent.id, q.now)) >= MAX_ACTIVE_DELEGATIONS) {
      throw new ServiceError(
        "CONFLICT",
        `an agent has at most ${MAX_ACTIVE_DELEGATIONS} active delegations; revoke one first`,
        { reason: "TOO_MANY_DELEGATIONS" },
      );
    }
    const inserted = await insertDelegation(db, q.organizationId, agent.id, d);
    await audit(db, {
      organizationId: q.organizationId,
      action: "delegation.created",
      actor: q.actor,
      target: { type: "delegation", id: inserted.id },
      details: {
        agent_id: agent.id,
        object_id: d.id,
        permissions: d.body.payload.permissions,
        expires_at: d.body.payload.expires_at,
      },
    });
    return inserted;
  });
}
