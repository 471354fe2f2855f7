import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction, type Pool } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
import type { Rollout } from "./options.js";
import { endWindowsOfPolicy } from "../observe/store.js";
import { loadPolicy, setEmergencyStop } from "./store.js";
import { lockOpenActions, supersedeCovered } from "@countersign/core/actions";
import { recordSupersession } from "./supersession-store.js";

/**
 * Emergency stop (POST .../emergency; docs/policy-rollout.md). From this
 * change on every Gateway denies the policy's calls (the pipeline reads
 * `emergency_stopped_at`), and it closes:
 * - every pending approval of the policy's open actions (a person's decision
 *   then gets 409 POLICY_VERSION_REPLACED) and every approved or allowed call
 *   not yet executed (SPEC 1.7: never authorized);
 * - the open observe windows of the policy's agents (end reason
 *   `policy_emergency`): nothing may be relaxed while the stop holds.
 * While it holds only a rollback is offered (409 EMERGENCY_ACTIVE elsewhere);
 * the rollback ends it.
 */
export async function emergencyStop(
  pool: Pool,
  rollout: Rollout,
  q: { organizationId: string; policyId: string; actor: Actor; userId: string | null },
) {
  return inTransaction(pool, async (db) => {
    const now = rollout.now();
    await lockOpenActions(db, {
      organizationId: q.organizationId,
      policyId: q.policyId,
      scope: "supersede_all",
    });
    const policy = await loadPolicy(db, q.organizationId, q.policyId, true);
    if (policy.emergency_stopped_at)
      throw new ServiceError(
        "EMERGENCY_ACTIVE",
        "the policy is already emergency-stopped; roll back to end the stop",
      );
    await setEmergencyStop(db, policy.id, now);
    const coverage = {
      organizationId: q.organizationId,
      policyId: policy.id,
      versionId: null,
      scope: "supersede_all" as const,
    };
    const closed = await supersedeCovered(db, coverage);
    await recordSupersession(db, coverage, "emergency", closed);
    const endedObserveWindows = await endWindowsOfPolicy(db, {
      organizationId: q.organizationId,
      policyId: policy.id,
      now,
      endedBy: q.userId,
    });
    await audit(db, {
      organizationId: q.organizationId,
      action: "policy.emergency_stopped",
      actor: q.actor,
      target: { type: "policy", id: policy.id },
      details: {
        active_version_id: policy.active_version_id,
        closed_actions: closed,
        ended_observe_windows: endedObserveWindows,
      },
    });
    return { emergencyStoppedAt: now, closed, endedObserveWindows };
  });
}
