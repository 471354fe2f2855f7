import { ServiceError } from "@countersign/protocol/errors";
import { simulate, type CompiledPolicy } from "@countersign/protocol/policy";
import type { Impact } from "@countersign/protocol/wire";
import type { Queryable } from "@countersign/core/store";
import type { Rollout } from "./options.js";
import { recordedInputs } from "./recorded-inputs-store.js";
import { compiledVersion, versionsById, type PolicyRow, type VersionRow } from "./store.js";

/**
 * The impact preview of SPEC 3.4 step 4: the newest 2000 decisions of the
 * policy's agents in the last 7 days, replayed under the candidate and the
 * active version, within a time budget of 1.5 s. When the budget is exceeded
 * the impact is not computed and nothing is refused. The clock is injected
 * (`RolloutOptions.clock`) so tests can exceed the budget without waiting.
 */
export const impactBounds = { decisions: 2000, days: 7, budgetMs: 1500 } as const;

export type { Impact };

export async function impactPreview(
  db: Queryable,
  q: {
    organizationId: string;
    policyId: string;
    candidate: CompiledPolicy;
    active: CompiledPolicy | null;
    now: Date;
  },
  clock: () => number,
  budgetMs: number = impactBounds.budgetMs,
): Promise<Impact> {
  const started = clock();
  const over = () => clock() - started > budgetMs;
  const inputs = await recordedInputs(db, {
    organizationId: q.organizationId,
    policyId: q.policyId,
    scope: "agents",
    environment: "all",
    since: new Date(q.now.getTime() - impactBounds.days * 86_400_000),
    until: new Date(q.now.getTime() + 1000),
    newest: impactBounds.decisions,
  });
  if (over()) return { computed: false, reason: "time_budget_exceeded" };
  let report;
  try {
    report = simulate(
      q.candidate,
      q.active ? { kind: "policy", policy: q.active } : { kind: "none" },
      inputs,
      { maxDifferences: 0 },
    );
  } catch {
    // 2000 decisions never reach the report limits; should they, nothing is refused either.
    return { computed: false, reason: "report_too_large" };
  }
  if (over()) return { computed: false, reason: "time_budget_exceeded" };
  const c = report.counts;
  // With no active version every call is denied (NO_POLICY): anything the candidate does not deny is looser.
  const loosened = q.active
    ? c.less_restricted
    : report.candidate_effects.allow + report.candidate_effects.require_approval;
  return {
    computed: true,
    decisions: c.recorded,
    less_restricted: loosened,
    more_restricted: q.active ? c.more_restricted : 0,
    same: q.active ? c.same + c.other_rule + c.other_approvers : report.candidate_effects.deny,
    not_evaluable: c.not_evaluable,
    argument_dependent: c.argument_dependent,
  };
}

/** A stored version compiled, or the POLICY_INVALID it no longer passes. */
export function compileOrError(v: VersionRow): CompiledPolicy | ServiceError {
  try {
    return compiledVersion(v);
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
}

/**
 * The impact of activating `version` now: the one computation behind both the preview a person
 * reviews (GET .../versions/<id>/impact, the dashboard's activation dialog) and the activation's
 * check against `max_loosened`, so the figure reviewed is the figure checked. Against the active
 * version as it stands; with none (a first activation) every call is denied NO_POLICY, so every
 * recent call the candidate allows or holds is less restricted, calls made before any policy was
 * active included. Null when the version's document no longer compiles (refused POLICY_INVALID).
 */
export async function activationImpact(
  db: Queryable,
  rollout: Rollout,
  q: { organizationId: string; policy: PolicyRow; version: VersionRow },
): Promise<Impact | null> {
  const candidate = compileOrError(q.version);
  if (candidate instanceof ServiceError) return null;
  const activeRow = q.policy.active_version_id
    ? (await versionsById(db, [q.policy.active_version_id])).get(q.policy.active_version_id)
    : undefined;
  const active = activeRow ? compileOrError(activeRow) : null;
  return impactPreview(
    db,
    {
      organizationId: q.organizationId,
      policyId: q.policy.id,
      candidate,
      active: active instanceof ServiceError ? null : active,
      now: rollout.now(),
    },
    rollout.clock,
    rollout.impactBudgetMs,
  );
}
