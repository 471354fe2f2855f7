import type { Queryable } from "@countersign/core/store";
import type { Actor } from "../audit/record.js";

/**
 * The writes of an activation (record-activation.ts), all in the caller's transaction: the
 * versions' states and the policy's pointers, the `policy_activations` record and the
 * `policy.activated` event row.
 */

/** The previous active version superseded, `versionId` active, the emergency stop ended, the shadow cleared when asked. */
export async function switchActiveVersion(
  db: Queryable,
  s: { policyId: string; previousId: string | null; versionId: string; clearsShadow: boolean; now: Date },
): Promise<void> {
  if (s.previousId) {
    await db.query("update policy_versions set status = 'superseded', superseded_at = $2 where id = $1", [
      s.previousId,
      s.now,
    ]);
  }
  await db.query("update policy_versions set status = 'active', activated_at = $2 where id = $1", [
    s.versionId,
    s.now,
  ]);
  await db.query(
    `update policies set active_version_id = $2, emergency_stopped_at = null,
            shadow_version_id = case when $3 then null else shadow_version_id end
      where id = $1`,
    [s.policyId, s.versionId, s.clearsShadow],
  );
}

/** The activation record a policy's evidence export shows; returns its id. */
export async function insertActivation(
  db: Queryable,
  a: {
    organizationId: string;
    policyId: string;
    versionId: string;
    previousVersionId: string | null;
    trigger: "activate" | "rollback";
    restoredVersionId: string | null;
    openActions: string | null;
    noteGiven: boolean;
    acknowledgedFailingExamples: boolean;
    failingExamples: number;
    impact: unknown;
    languageGate: unknown;
    simulationId: string | null;
    actor: Actor;
    now: Date;
  },
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `insert into policy_activations (organization_id, policy_id, version_id, previous_version_id, trigger, restored_version_id, open_actions,
                                     note_given, acknowledged_failing_examples, failing_examples, impact, language_gate, simulation_id,
                                     actor_type, actor_id, actor_label, created_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) returning id`,
    [
      a.organizationId,
      a.policyId,
      a.versionId,
      a.previousVersionId,
      a.trigger,
      a.restoredVersionId,
      a.openActions,
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
  return rows[0]!.id;
}

/** The `policy.activated` event row that feeds webhooks (SPEC 6.1). */
export async function insertActivatedEvent(
  db: Queryable,
  organizationId: string,
  data: Record<string, unknown>,
  at: Date,
): Promise<void> {
  await db.query(
    "insert into events (organization_id, type, data, created_at) values ($1, 'policy.activated', $2, $3)",
    [organizationId, JSON.stringify(data), at],
  );
}
