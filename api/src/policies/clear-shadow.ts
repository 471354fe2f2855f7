import { ServiceError } from "@countersign/protocol/errors";
import type { Policy } from "@countersign/protocol/wire";
import { inTransaction, type Pool } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
import { loadPolicy, policyJson, setShadowVersion } from "./store.js";

/** Clears the shadow version (SPEC 3.5, DELETE .../shadow); 409 NO_SHADOW when none is set. */
export async function clearShadow(
  pool: Pool,
  q: { organizationId: string; policyId: string; actor: Actor },
): Promise<Policy> {
  return inTransaction(pool, async (db) => {
    const p = await loadPolicy(db, q.organizationId, q.policyId, true);
    if (!p.shadow_version_id) throw new ServiceError("NO_SHADOW", "the policy has no shadow version");
    await setShadowVersion(db, p.id, null);
    await audit(db, {
      organizationId: q.organizationId,
      action: "policy.shadow_cleared",
      actor: q.actor,
      target: { type: "policy", id: p.id },
      details: { version_id: p.shadow_version_id },
    });
    return policyJson(await loadPolicy(db, q.organizationId, p.id));
  });
}
