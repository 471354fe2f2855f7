import { ServiceError } from "../../errors/index.js";
import { UNKNOWN_ARGUMENTS, type CompiledPolicy } from "../compile.js";
import { fromScaled, toScaled } from "../decimal.js";
import { policyLimits } from "../document/limits.js";
import type { Effect } from "../document/schema.js";
import { restriction } from "../evaluate.js";

/**
 * Simulation (SPEC 4.5): replays the policy effect only, on recorded inputs
 * (action, exposed tool name, amount, currency), never arguments; no observe
 * windows, delegations, approver resolution or tool bindings. A recorded call
 * whose candidate (or baseline) decision an argument condition could change
 * cannot be replayed without its arguments: it is counted as
 * `argument_dependent` and not evaluated.
 */
export interface RecordedDecision {
  effect: Effect;
  rule_id: string | null;
  approvers?: { roles: readonly string[]; count: number } | null;
}

export interface RecordedInput {
  tool: string;
  action: string;
  amount?: string | null;
  currency?: string | null;
  /** False for calls denied before policy evaluation (INVALID_AMOUNT, INVALID_TOOL_CONFIGURATION). */
  evaluable?: boolean;
  /** The decision recorded at the time; needed for the `recorded` baseline. */
  recorded?: RecordedDecision | null;
  /** How many recorded calls this row stands for (default 1). */
  count?: number;
}

export type Baseline = { kind: "policy"; policy: CompiledPolicy } | { kind: "recorded" } | { kind: "none" };

export type Change = "less_restricted" | "more_restricted" | "other_rule" | "other_approvers" | "same";

export interface SimulationCounts {
  recorded: number;
  evaluated: number;
  not_evaluable: number;
  argument_dependent: number;
  less_restricted: number;
  more_restricted: number;
  other_rule: number;
  other_approvers: number;
  same: number;
}

export interface SimulationDifference {
  tool: string;
  action: string;
  amount: string | null;
  currency: string | null;
  count: number;
  change: Exclude<Change, "same">;
  baseline: RecordedDecision;
  candidate: RecordedDecision;
}

export interface SimulationReport {
  counts: SimulationCounts;
  /** Calls by candidate effect (also without a baseline). */
  candidate_effects: Record<Effect, number>;
  /** Rows: baseline effect; columns: candidate effect. Null without a baseline. */
  matrix: Record<Effect, Record<Effect, number>> | null;
  differences: SimulationDifference[];
  differences_truncated: boolean;
  distinct_inputs: number;
  rule_evaluations: number;
}

export interface SimulationOptions {
  /** Most differences listed (counts always cover all); default 1000. */
  maxDifferences?: number;
}

const zeroRow = (): Record<Effect, number> => ({ allow: 0, require_approval: 0, deny: 0 });

function compare(base: RecordedDecision, cand: RecordedDecision): Change {
  const d = restriction[cand.effect] - restriction[base.effect];
  if (d < 0) return "less_restricted";
  if (d > 0) return "more_restricted";
  if (base.rule_id !== cand.rule_id) return "other_rule";
  if (cand.effect === "require_approval") {
    const a = base.approvers;
    const b = cand.approvers;
    if (a && b && (a.count !== b.count || [...a.roles].sort().join() !== [...b.roles].sort().join()))
      return "other_approvers";
  }
  return "same";
}

function tooLarge(reason: string, limit: number): ServiceError {
  return new ServiceError("REPORT_TOO_LARGE", `simulation exceeds ${limit} ${reason.replace("_", " ")}`, {
    reason,
    limit,
  });
}

interface Group {
  tool: string;
  action: string;
  amount: bigint | null;
  currency: string | null;
  recorded: RecordedDecision | null;
  count: number;
}

export function simulate(
  candidate: CompiledPolicy,
  baseline: Baseline,
  inputs: Iterable<RecordedInput>,
  options: SimulationOptions = {},
): SimulationReport {
  const counts: SimulationCounts = {
    recorded: 0,
    evaluated: 0,
    not_evaluable: 0,
    argument_dependent: 0,
    less_restricted: 0,
    more_restricted: 0,
    other_rule: 0,
    other_approvers: 0,
    same: 0,
  };
  // Identical inputs are replayed once: the policy is deterministic.
  const groups = new Map<string, Group>();
  for (const input of inputs) {
    const n = input.count ?? 1;
    counts.recorded += n;
    const amount = input.amount === undefined || input.amount === null ? null : toScaled(input.amount);
    const recorded = baseline.kind === "recorded" ? (input.recorded ?? null) : null;
    if (input.evaluable === false || amount === undefined || (baseline.kind === "recorded" && !recorded)) {
      counts.not_evaluable += n;
      continue;
    }
    const currency = input.currency ?? null;
    const key = JSON.stringify([
      input.tool,
      input.action,
      amount === null ? null : fromScaled(amount),
      currency,
      recorded && [recorded.effect, recorded.rule_id, recorded.approvers ?? null],
    ]);
    const g = groups.get(key);
    if (g) g.count += n;
    else {
      groups.set(key, { tool: input.tool, action: input.action, amount, currency, recorded, count: n });
      if (groups.size > policyLimits.simulationDistinctInputs)
        throw tooLarge("distinct_inputs", policyLimits.simulationDistinctInputs);
    }
  }
  const perInput = candidate.rules.length + (baseline.kind === "policy" ? baseline.policy.rules.length : 0);
  const ruleEvaluations = groups.size * perInput;
  if (ruleEvaluations > policyLimits.simulationRuleEvaluations)
    throw tooLarge("rule_evaluations", policyLimits.simulationRuleEvaluations);

  const candidateEffects = zeroRow();
  const matrix =
    baseline.kind === "none" ? null : { allow: zeroRow(), require_approval: zeroRow(), deny: zeroRow() };
  const differences: SimulationDifference[] = [];
  const max = options.maxDifferences ?? 1000;
  let truncated = false;
  const asRecorded = (d: {
    effect: Effect;
    rule_id: string | null;
    approvers: RecordedDecision["approvers"];
  }): RecordedDecision => ({ effect: d.effect, rule_id: d.rule_id, approvers: d.approvers });
  for (const g of groups.values()) {
    const cand = candidate.decideOpen(g.tool, g.action, g.amount, g.currency, UNKNOWN_ARGUMENTS).decision;
    let base: RecordedDecision | null = null;
    if (baseline.kind === "policy") {
      const b = baseline.policy.decideOpen(
        g.tool,
        g.action,
        g.amount,
        g.currency,
        UNKNOWN_ARGUMENTS,
      ).decision;
      if (b) base = asRecorded(b);
      else if (cand) {
        counts.argument_dependent += g.count;
        continue;
      }
    } else if (baseline.kind === "recorded") base = g.recorded;
    if (!cand) {
      counts.argument_dependent += g.count;
      continue;
    }
    counts.evaluated += g.count;
    candidateEffects[cand.effect] += g.count;
    if (!base || !matrix) continue;
    matrix[base.effect][cand.effect] += g.count;
    const change = compare(base, cand);
    counts[change] += g.count;
    if (change === "same") continue;
    if (differences.length >= max) {
      truncated = true;
      continue;
    }
    differences.push({
      tool: g.tool,
      action: g.action,
      amount: g.amount === null ? null : fromScaled(g.amount),
      currency: g.currency,
      count: g.count,
      change,
      baseline: base,
      candidate: asRecorded(cand),
    });
  }
  return {
    counts,
    candidate_effects: candidateEffects,
    matrix,
    differences,
    differences_truncated: truncated,
    distinct_inputs: groups.size,
    rule_evaluations: ruleEvaluations,
  };
}
