import { ServiceError } from "@countersign/protocol/errors";
import type { SimulationRequest } from "@countersign/protocol/wire";
import { inTransaction, type Pool } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
import { runSimulation } from "./simulation.js";
import {
  insertSimulation,
  savedSimulationBounds,
  simulationsSavedSince,
  type SimulationRow,
} from "./simulation-store.js";
import { loadPolicy } from "./store.js";

/**
 * Runs and saves a simulation of a saved version (SPEC 4.5, POST
 * .../simulations), at most 100 per policy per 24 hours (SPEC 8.4; the
 * policy is locked so the count is exact). An activation may name it
 * (`simulation_id`).
 */
export async function saveSimulation(
  pool: Pool,
  q: {
    organizationId: string;
    policyId: string;
    candidateVersionId: string;
    body: SimulationRequest;
    actor: Actor;
    now: Date;
  },
): Promise<SimulationRow> {
  const b = q.body;
  return inTransaction(pool, async (db) => {
    const locked = await loadPolicy(db, q.organizationId, q.policyId, true);
    if ((await simulationsSavedSince(db, locked.id, q.now)) >= savedSimulationBounds.perDay)
      throw new ServiceError("SIMULATION_LIMIT", "at most 100 simulations are saved per policy per 24 hours");
    const out = await runSimulation(db, locked, b, q.now);
    const s = await insertSimulation(db, {
      organizationId: q.organizationId,
      policyId: locked.id,
      candidateVersionId: q.candidateVersionId,
      baseline: out.baseline,
      parameters: { window_days: b.window_days, scope: b.scope, environment: b.environment },
      report: { ...out.report, calls: out.calls, examples: out.examples ?? null },
      createdBy: q.actor,
      now: q.now,
    });
    await audit(db, {
      organizationId: q.organizationId,
      action: "policy.simulation_saved",
      actor: q.actor,
      target: { type: "policy", id: locked.id },
      details: {
        simulation_id: s.id,
        candidate_version_id: q.candidateVersionId,
        baseline: out.baseline,
        counts: out.report.counts,
      },
    });
    return s;
  });
}
