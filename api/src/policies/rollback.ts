import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction, type Pool } from "@countersign/core/store";
import type { Actor } from "../audit/record.js";
import { gateMessages, languageGate, type LanguageGate } from "./language-gate.js";
import type { Rollout } from "./options.js";
import { recordActivation } from "./record-activation.js";
import {
  compiledVersion,
  lastSuperseded,
  loadPolicy,
  loadVersion,
  namedVersion,
  type VersionRow,
} from "./store.js";
import { lockOpenActions, supersedeCovered } from "@countersign/core/actions";
import { recordSupersession } from "./supersession-store.js";
import { insertVersion } from "./versions.js";

/** The body of POST .../rollback (SPEC 4.5, 3.6). */
export interface RollbackRequest {
  expected_active_version_id: string | null;
  to_version_id?: string;
  note?: string;
  open_actions: "keep" | "supersede_pending" | "supersede_all";
}

export interface Rollback {
  version: VersionRow;
  restored: VersionRow;
  previousVersionId: string | null;
  closed: number;
  warnings: { code: "GATEWAYS_NOT_UPGRADED"; message: string; language_gate: LanguageGate }[];
  shadowCleared: boolean;
}

/**
 * Rollback (SPEC 3.3, 3.6): a new version, an exact copy of a superseded one
 * with the note stored, is created and activated in one change. No examples,
 * simulation or impact check; the language gate is bypassed with a warning.
 * Covered open actions are closed in the same transaction (so from the
 * moment of rollback none is approved or executed); decisions in flight that
 * commit just after are closed by the supersede worker.
 */
export async function rollBack(
  pool: Pool,
  rollout: Rollout,
  q: { organizationId: string; policyId: string; body: RollbackRequest; actor: Actor },
): Promise<Rollback> {
  const b = q.body;
  return inTransaction(pool, async (db) => {
    const now = rollout.now();
    const scope = b.open_actions === "keep" ? null : b.open_actions;
    // Actions before the policy: the Gateway's hand-out locks in that order too.
    if (scope) await lockOpenActions(db, { organizationId: q.organizationId, policyId: q.policyId, scope });
    const policy = await loadPolicy(db, q.organizationId, q.policyId, true);
    if (b.expected_active_version_id !== policy.active_version_id) {
      throw new ServiceError("ACTIVE_VERSION_CHANGED", "the active version is no longer the one expected", {
        active_version_id: policy.active_version_id,
      });
    }
    let target: VersionRow;
    if (b.to_version_id === undefined) {
      const last = await lastSuperseded(db, policy.id);
      if (!last)
        throw new ServiceError("NOTHING_TO_ROLL_BACK", "no version of this policy was ever superseded");
      target = last;
    } else {
      target = await namedVersion(db, policy.id, b.to_version_id, "to_version_id");
      if (target.status !== "superseded")
        throw new ServiceError(
          "INVALID_STATE",
          `version ${target.number} is ${target.status}; only a superseded version can be rolled back to`,
        );
    }
    compiledVersion(target); // 422 POLICY_INVALID when the stored document no longer validates

    const warnings: Rollback["warnings"] = [];
    let gate: LanguageGate | null = null;
    if (target.language_revision === 2) {
      gate = await languageGate(db, q.organizationId, now);
      if (!gate.open)
        warnings.push({
          code: "GATEWAYS_NOT_UPGRADED",
          message: `${gateMessages[gate.reason]}; an outdated Gateway denies every call of this policy`,
          language_gate: gate,
        });
    }

    const copy = await insertVersion(db, {
      organizationId: q.organizationId,
      policyId: policy.id,
      document: target.document,
      digest: target.digest,
      revision: target.language_revision,
      note: b.note ?? null,
      origin: "rollback",
      sourceVersionId: target.id,
      createdBy: q.actor.label,
    });
    const { shadowCleared } = await recordActivation(db, {
      policy,
      version: copy,
      trigger: "rollback",
      restored: target,
      openActions: b.open_actions,
      noteGiven: b.note !== undefined && b.note.length > 0,
      acknowledgedFailingExamples: false,
      failingExamples: 0,
      impact: undefined,
      languageGate: gate ?? undefined,
      simulationId: null,
      actor: q.actor,
      now,
    });
    let closed = 0;
    if (scope) {
      const coverage = { organizationId: q.organizationId, policyId: policy.id, versionId: copy.id, scope };
      closed = await supersedeCovered(db, coverage);
      await recordSupersession(db, coverage, "rollback", closed);
    }
    const after = await loadVersion(db, policy.id, copy.id);
    return {
      version: after,
      restored: target,
      previousVersionId: policy.active_version_id,
      closed,
      warnings,
      shadowCleared,
    };
  });
}
