import type { Policy, PolicyPatch } from "@countersign/protocol/wire";
import { inTransaction, type Pool } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
import { loadPolicy, policyJson, setDisclosure } from "./store.js";

/** PATCH .../policies/<id>: the disclosure setting, which is in no document and creates no version (SPEC 2.4). */
export async function updatePolicy(
  pool: Pool,
  q: { organizationId: string; policyId: string; disclosure: PolicyPatch["agent_disclosure"]; actor: Actor },
): Promise<Policy> {
  return inTransaction(pool, async (db) => {
    const p = await loadPolicy(db, q.organizationId, q.policyId, true);
    await setDisclosure(db, p.id, q.disclosure);
    await audit(db, {
      organizationId: q.organizationId,
      action: "policy.updated",
      actor: q.actor,
      target: { type: "policy", id: p.id },
      details: { agent_disclosure: { from: p.agent_disclosure, to: q.disclosure } },
    });
    return policyJson(await loadPolicy(db, q.organizationId, p.id));
  });
}
