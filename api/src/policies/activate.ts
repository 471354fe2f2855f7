import { ServiceError } from "@countersign/protocol/errors";
import { runExamples, type ExamplesReport } from "@countersign/protocol/policy";
import type { PolicyActivate } from "@countersign/protocol/wire";
import { inTransaction, type Pool } from "@countersign/core/store";
import type { Actor } from "../audit/record.js";
import { activationImpact, compileOrError, type Impact } from "./impact.js";
import { gateMessages, languageGate, type LanguageGate } from "./language-gate.js";
import type { Rollout } from "./options.js";
import { recordActivation } from "./record-activation.js";
import { readSimulation } from "./simulation-store.js";
import { loadPolicy, loadVersion, type VersionRow } from "./store.js";

/** The body of POST .../versions/<version_id>/activate (SPEC 4.5). */
export type ActivateRequest = PolicyActivate;

export interface Activation {
  version: VersionRow;
  previousVersionId: string | null;
  examples: ExamplesReport | null;
  impact: Impact | null;
  languageGate: LanguageGate | null;
  shadowCleared: boolean;
}

/**
 * Activation with the gates of SPEC 3.4, checked in order; any refusal
 * throws before anything is written, and the transaction holds the policy
 * row, so a refusal changes nothing and two activations never interleave.
 * An emergency stop comes first: while it holds only a rollback is offered.
 */
export async function activateVersion(
  pool: Pool,
  rollout: Rollout,
  q: { organizationId: string; policyId: string; versionId: string; body: ActivateRequest; actor: Actor },
): Promise<Activation> {
  const b = q.body;
  return inTransaction(pool, async (db) => {
    const now = rollout.now();
    const policy = await loadPolicy(db, q.organizationId, q.policyId, true);
    const version = await loadVersion(db, policy.id, q.versionId);
    if (policy.emergency_stopped_at)
      throw new ServiceError(
        "EMERGENCY_ACTIVE",
        "the policy is emergency-stopped; only a rollback is possible",
      );

    // 1. State.
    if (version.status === "active")
      throw new ServiceError("ALREADY_ACTIVE", `version ${version.number} is already active`);
    if (version.status === "superseded")
      throw new ServiceError(
        "INVALID_STATE",
        `version ${version.number} was superseded; use rollback to restore it`,
      );

    // 2. Language gate: revision-1 documents always pass.
    let gate: LanguageGate | null = null;
    if (version.language_revision === 2) {
      gate = await languageGate(db, q.organizationId, now);
      if (!gate.open)
        throw new ServiceError("GATEWAYS_NOT_UPGRADED", gateMessages[gate.reason], { language_gate: gate });
    }

    // The document is compiled once for the next gates; a stored document that
    // no longer validates is refused POLICY_INVALID in its place (step 5).
    const compiled = compileOrError(version);

    // 3. Examples gate.
    let examples: ExamplesReport | null = null;
    if (!(compiled instanceof ServiceError) && policy.examples.length > 0) {
      examples = runExamples(compiled, policy.examples);
      if (examples.failed > 0 && !b.acknowledge_failing_examples) {
        throw new ServiceError(
          "EXAMPLES_FAILING",
          `${examples.failed} saved example(s) fail under version ${version.number}`,
          {
            failed: examples.failed,
            failing: examples.results.filter((r) => r.passed === false),
          },
        );
      }
    }

    // 4. Impact preview within its time budget; refuses only against max_loosened. The same
    // computation as the preview the person reviewed (GET .../impact), so the figures agree.
    const impact = await activationImpact(db, rollout, {
      organizationId: q.organizationId,
      policy,
      version,
    });
    if (b.max_loosened !== undefined && impact?.computed && impact.less_restricted! > b.max_loosened) {
      throw new ServiceError(
        "IMPACT_CHANGED",
        `${impact.less_restricted} recent calls would be less restricted, more than max_loosened ${b.max_loosened}`,
        { impact, max_loosened: b.max_loosened },
      );
    }

    // 5. The other refusals.
    if (
      b.expected_active_version_id !== undefined &&
      b.expected_active_version_id !== policy.active_version_id
    ) {
      throw new ServiceError("ACTIVE_VERSION_CHANGED", "the active version is no longer the one expected", {
        active_version_id: policy.active_version_id,
      });
    }
    if (b.shadow_version_id !== undefined && b.shadow_version_id !== policy.shadow_version_id) {
      throw new ServiceError("SHADOW_CHANGED", "the shadow version is no longer the one expected", {
        shadow_version_id: policy.shadow_version_id,
      });
    }
    if (compiled instanceof ServiceError) throw compiled;
    if (b.simulation_id !== undefined) {
      const s = await readSimulation(db, policy.id, b.simulation_id, now);
      const baselineVersion = s?.baseline.version_id ?? null;
      const matches =
        s &&
        s.candidate_version_id === version.id &&
        (s.baseline.kind === "active" || s.baseline.kind === "version") &&
        baselineVersion === policy.active_version_id;
      if (!matches) {
        throw new ServiceError(
          "SIMULATION_MISMATCH",
          "simulation_id names no saved simulation of this version against the active version",
        );
      }
    }

    const { shadowCleared } = await recordActivation(db, {
      policy,
      version,
      trigger: "activate",
      noteGiven: typeof b.note === "string" && b.note.length > 0,
      acknowledgedFailingExamples: b.acknowledge_failing_examples === true && (examples?.failed ?? 0) > 0,
      failingExamples: examples?.failed ?? 0,
      impact,
      languageGate: gate,
      simulationId: b.simulation_id ?? null,
      actor: q.actor,
      now,
    });
    const after = await loadVersion(db, policy.id, version.id);
    return {
      version: after,
      previousVersionId: policy.active_version_id,
      examples,
      impact,
      languageGate: gate,
      shadowCleared,
    };
  });
}
