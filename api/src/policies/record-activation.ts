import type { Queryable } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
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
  if (previous) {
    await db.query("update policy_versions set status = 'superseded', superseded_at = $2 where id = $1", [
      previous,
      a.now,
    ]);
  }
  await db.query("update policy_versions set status = 'active', activated_at = $2 where id = $1", [
    a.version.id,
    a.now,
  ]);
  const clearsShadow = p.shadow_version_id !== null && p.shadow_version_id === (a.restored ?? a.version).id;
  await db.query(
    `update policies set active_version_id = $2, emergency_stopped_at = null,
            shadow_version_id = case when $3 then null else shadow_version_id end
      where id = $1`,
    [p.id, a.version.id, clearsShadow],
  );
  const { rows } = await db.query<{ id: string }>(
    `insert into policy_activations (organization_id, policy_id, version_id, previous_version_id, trigger, restored_version_id, open_actions,
                                     note_given, acknowledged_failing_examples, failing_examples, impact, language_gate, simulation_id,
                                     actor_type, actor_id, actor_label, created_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) returning id`,
    [
      p.organization_id,
      p.id,
      a.version.id,
      previous,
      a.trigger,
      a.restored?.id ?? null,
      a.openActions ?? null,
      a.noteGiven,
      a.acknowledgedFailingExamples,
      a.failingExamples,
      a.impact === undefined ? null : JSON.stringify(a.impact),
      a.languageGate === undefined ? null : JSON.stringify(a.languageGate),
      a.simulationId,
      a.actor.type,
      a.actor.id,
      a.actor.label,
      a.now,
    ],
  );
  const activationId = rows[0]!.id;
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
  await db.query(
    "insert into events (organization_id, type, data, created_at) values ($1, 'policy.activated', $2, $3)",
    [
      p.organization_id,
      JSON.stringify({
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
      }),
      a.now,
    ],
  );
  return { activationId, shadowCleared: clearsShadow };
}
