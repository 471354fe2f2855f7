import { lockOpenActions, supersedeCovered, type SupersedeScope } from "@countersign/core/actions";
import { inTransaction, type Pool } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
import { loadPolicy } from "./store.js";
import { recordSupersession } from "./supersession-store.js";

/**
 * Closes the policy's covered open actions now (SPEC 3.6, POST
 * .../supersede-open-actions): everything open not decided under the version
 * in force (all of them under an emergency stop). The supersession is
 * recorded so the worker closes what decisions in flight record after it.
 */
export async function supersedeOpenActions(
  pool: Pool,
  q: { organizationId: string; policyId: string; scope: SupersedeScope; actor: Actor },
): Promise<number> {
  return inTransaction(pool, async (db) => {
    // Actions before the policy: the Gateway's hand-out locks in that order too.
    await lockOpenActions(db, { organizationId: q.organizationId, policyId: q.policyId, scope: q.scope });
    const p = await loadPolicy(db, q.organizationId, q.policyId, true);
    const coverage = {
      organizationId: q.organizationId,
      policyId: p.id,
      versionId: p.emergency_stopped_at ? null : p.active_version_id,
      scope: q.scope,
    };
    const closed = await supersedeCovered(db, coverage);
    await recordSupersession(db, coverage, "manual", closed);
    await audit(db, {
      organizationId: q.organizationId,
      action: "policy.open_actions_superseded",
      actor: q.actor,
      target: { type: "policy", id: p.id },
      details: { scope: q.scope, closed_actions: closed },
    });
    return closed;
  });
}
