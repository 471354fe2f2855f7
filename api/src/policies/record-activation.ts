import type { Queryable } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
import { insertActivatedEvent, insertActivation, switchActiveVersion } from "./activation-store.js";
import type { PolicyRow, VersionRow } from "./store.js";

/**
 * Makes `version` the active version in one change (SPEC 3.3): the previous
 * active becomes superseded, the shadow is cleared when it is the version
 * activated (or, for a rollback, the version restored), an emergency stop
 * ends (only a rollback reaches here during one). Then the activation record,
 * the audit entries and the `policy.activated` event row, all in the
 * caller's transaction, so the event exists exactly when the change took
 * effect (SPEC 6.1). The event's data shape is in docs/policy-rollout.md.
 */
export async function recordActivation(
  db: Queryable,
  a: {
    policy: PolicyRow;
    version: VersionRow;
    trigger: "activate" | "rollback";
    restored?: VersionRow;
    openActions?: string;
    noteGiven: boolean;
    acknowledgedFailingExamples: boolean;
    failingExamples: number;
    impact: unknown;
    languageGate: unknown;
    simulationId: string | null;
    actor: Actor;
    now: Date;
  },
): Promise<{ activationId: string; shadowCleared: boolean }> {
  const p = a.policy;
  const previous = p.active_version_id;
  const clearsShadow = p.shadow_version_id !== null && p.shadow_version_id === (a.restored ?? a.version).id;
  await switchActiveVersion(db, {
    policyId: p.id,
    previousId: previous,
    versionId: a.version.id,
    clearsShadow,
    now: a.now,
  });
  const activationId = await insertActivation(db, {
    organizationId: p.organization_id,
    policyId: p.id,
    versionId: a.version.id,
    previousVersionId: previous,
    trigger: a.trigger,
    restoredVersionId: a.restored?.id ?? null,
    openActions: a.openActions ?? null,
    noteGiven: a.noteGiven,
    acknowledgedFailingExamples: a.acknowledgedFailingExamples,
    failingExamples: a.failingExamples,
    impact: a.impact,
    languageGate: a.languageGate,
    simulationId: a.simulationId,
    actor: a.actor,
    now: a.now,
  });
  const target = { type: "policy", id: p.id };
  await audit(db, {
    organizationId: p.organization_id,
    action: "policy.activated",
    actor: a.actor,
    target,
    details: {
      trigger: a.trigger,
      version_id: a.version.id,
      version: a.version.number,
      digest: a.version.digest,
      previous_version_id: previous,
      // The note's text is not stored; only that one was given (SPEC 4.5).
      note_given: a.noteGiven,
      acknowledged_failing_examples: a.acknowledgedFailingExamples,
      failing_examples: a.failingExamples,
      shadow_cleared: clearsShadow,
    },
  });
  if (a.trigger === "rollback") {
    await audit(db, {
      organizationId: p.organization_id,
      action: "policy.rolled_back",
      actor: a.actor,
      target,
      details: {
        version_id: a.version.id,
        version: a.version.number,
        restored_version_id: a.restored!.id,
        restored_version: a.restored!.number,
        previous_version_id: previous,
        open_actions: a.openActions,
      },
    });
  }
  await insertActivatedEvent(
    db,
    p.organization_id,
    {
      policy_id: p.id,
      policy_name: p.name,
      version_id: a.version.id,
      version: a.version.number,
      digest: a.version.digest,
      language_revision: a.version.language_revision,
      previous_version_id: previous,
      trigger: a.trigger,
      restored_version_id: a.restored?.id ?? null,
      activated_at: a.now.toISOString(),
    },
    a.now,
  );
  return { activationId, shadowCleared: clearsShadow };
}
