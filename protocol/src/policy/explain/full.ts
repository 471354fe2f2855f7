import { scaledAmount, type CompiledPolicy } from "../compile.js";
import type { Condition, Effect } from "../document/schema.js";
import { policyLimits } from "../document/limits.js";
import { utf8Length } from "../../platform/runtime.js";
import type { Decision, PolicyInput } from "../evaluate.js";
import { compileActionCondition } from "../conditions/action.js";
import { compileAmountCondition } from "../conditions/amount.js";
import { compileArgumentCondition } from "../conditions/arguments.js";
import { approvalSummary, decidedBy } from "./agent.js";
import type { AmountBand } from "./amount-band.js";
import {
  decisionOfEffect,
  type ApprovalSummary,
  type DecidedBy,
  type ExplanationContext,
} from "./context.js";
import type { DecisionFacts } from "./facts.js";
import { explanationMessage } from "./message.js";

export const EXPLANATION_SCHEMA = "service.cloud/explanation@1";

/** A condition with whether it held for this call; never the argument's value. */
export type ExplainedCondition = Condition & { held: boolean };

export interface ExplainedRule {
  id: string;
  effect: Effect;
  description: string | null;
  guard: boolean;
  tools_match: boolean;
  matched: boolean;
  decided: boolean;
  conditions: ExplainedCondition[];
}

interface ExplanationCore {
  schema: typeof EXPLANATION_SCHEMA;
  policy: { name: string; version: number; digest: string };
  enforcement: "enforce" | "observe";
  decision: string;
  policy_effect: Effect;
  decided_by: DecidedBy;
  approval: ApprovalSummary | null;
  message: string;
}

export interface FullExplanation extends ExplanationCore {
  minimal: false;
  call: Omit<DecisionFacts, "amount_band">;
  default_effect: Effect;
  /** Every rule in document order, each with whether it applied: people may see all of it. */
  rules: ExplainedRule[];
  amount_band: AmountBand | null;
}

export interface MinimalExplanation extends ExplanationCore {
  minimal: true;
  reason: "too_large" | "detail_off";
}

export type Explanation = FullExplanation | MinimalExplanation;

function conditionHeld(c: Condition, input: PolicyInput): boolean {
  switch (c.field) {
    case "action":
      return compileActionCondition(c)(input.action);
    case "amount":
      return compileAmountCondition(c).test(scaledAmount(input), input.currency ?? null);
    case "arguments":
      return compileArgumentCondition(c).test(input.arguments ?? {});
  }
}

/**
 * The explanation for people (SPEC 2.9): every rule with what held, the call
 * (without argument values, which logs and explanations never carry), the
 * decision and the amount band. Past 16 KiB as canonical JSON, or when
 * detail is switched off, the minimal explanation; the decision is the same.
 */
export function fullExplanation(
  policy: CompiledPolicy,
  input: PolicyInput,
  decision: Decision,
  facts: DecisionFacts,
  ctx: ExplanationContext,
  options: { detailed?: boolean } = {},
): Explanation {
  const rule = decision.rule_index >= 0 ? policy.rules[decision.rule_index]!.rule : undefined;
  const core: ExplanationCore = {
    schema: EXPLANATION_SCHEMA,
    policy: { ...ctx.policy },
    enforcement: ctx.enforcement ?? "enforce",
    decision: ctx.decision ?? decisionOfEffect[decision.effect],
    policy_effect: decision.effect,
    decided_by: decidedBy(decision, ctx),
    approval: approvalSummary(decision, ctx) ?? null,
    message: explanationMessage(decision, ctx.check ? [] : (rule?.conditions ?? []), ctx, {
      values: true,
      argumentOperands: true,
    }),
  };
  if (options.detailed === false) return { ...core, minimal: true, reason: "detail_off" };
  const { amount_band, ...call } = facts;
  const full: FullExplanation = {
    ...core,
    minimal: false,
    call,
    default_effect: policy.document.default_effect ?? "deny",
    rules: policy.rules.map((r) => ({
      id: r.rule.id,
      effect: r.rule.effect,
      description: r.rule.description ?? null,
      guard: r.rule.guard === true,
      tools_match: r.tools === null || r.tools(input.tool),
      matched: policy.ruleMatches(r, input),
      decided: r.index === decision.rule_index && !ctx.check,
      conditions: (r.rule.conditions ?? []).map((c) => ({ ...c, held: conditionHeld(c, input) })),
    })),
    amount_band,
  };
  // The canonical text's length without building it: RFC 8785 differs from JSON.stringify only in
  // the order of members (this runs for every decision).
  if (utf8Length(JSON.stringify(full)) > policyLimits.explanationBytes) {
    return { ...core, minimal: true, reason: "too_large" };
  }
  return full;
}
