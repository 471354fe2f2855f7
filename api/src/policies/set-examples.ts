import { runExamples, type ExamplesReport, type PolicyExample } from "@countersign/protocol/policy";
import { inTransaction, type Pool } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
import { compiledVersion, loadPolicy, loadVersion, setExamples } from "./store.js";

/**
 * Replaces the policy's saved examples (SPEC 2.4, PUT .../examples; already
 * validated by the engine) and runs them against the active version, the
 * report the person sees at once.
 */
export async function saveExamples(
  pool: Pool,
  q: { organizationId: string; policyId: string; examples: PolicyExample[]; actor: Actor },
): Promise<{ examples: PolicyExample[]; active_version_report: ExamplesReport | null }> {
  return inTransaction(pool, async (db) => {
    const p = await loadPolicy(db, q.organizationId, q.policyId, true);
    await setExamples(db, p.id, q.examples);
    await audit(db, {
      organizationId: q.organizationId,
      action: "policy.examples_updated",
      actor: q.actor,
      target: { type: "policy", id: p.id },
      details: { count: q.examples.length },
    });
    const active = p.active_version_id ? await loadVersion(db, p.id, p.active_version_id) : null;
    return {
      examples: q.examples,
      active_version_report: active ? runExamples(compiledVersion(active), q.examples) : null,
    };
  });
}
