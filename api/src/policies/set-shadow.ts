import { ServiceError } from "@countersign/protocol/errors";
import type { Policy, PolicyVersion, ShadowSet } from "@countersign/protocol/wire";
import { inTransaction, type Pool } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
import { loadPolicy, namedVersion, policyJson, setShadowVersion, versionJson } from "./store.js";

/**
 * Sets the shadow version (SPEC 3.5, PUT .../shadow): any version but the
 * active one, not during an emergency stop, and only if the shadow is still
 * the one the person saw (`expected_shadow_version_id`).
 */
export async function setShadow(
  pool: Pool,
  q: { organizationId: string; policyId: string; body: ShadowSet; actor: Actor },
): Promise<{ policy: Policy; shadow_version: PolicyVersion }> {
  const b = q.body;
  return inTransaction(pool, async (db) => {
    const p = await loadPolicy(db, q.organizationId, q.policyId, true);
    if (p.emergency_stopped_at)
      throw new ServiceError(
        "EMERGENCY_ACTIVE",
        "the policy is emergency-stopped; only a rollback is possible",
      );
    const v = await namedVersion(db, p.id, b.version_id, "version_id");
    if (v.id === p.active_version_id)
      throw new ServiceError("SHADOW_IS_ACTIVE", "the shadow version cannot be the active version");
    if (b.expected_shadow_version_id !== undefined && b.expected_shadow_version_id !== p.shadow_version_id) {
      throw new ServiceError("SHADOW_CHANGED", "the shadow version is no longer the one expected", {
        shadow_version_id: p.shadow_version_id,
      });
    }
    await setShadowVersion(db, p.id, v.id);
    await audit(db, {
      organizationId: q.organizationId,
      action: "policy.shadow_set",
      actor: q.actor,
      target: { type: "policy", id: p.id },
      details: { version_id: v.id, version: v.number, previous_shadow_version_id: p.shadow_version_id },
    });
    return {
      policy: policyJson(await loadPolicy(db, q.organizationId, p.id)),
      shadow_version: versionJson(v),
    };
  });
}
