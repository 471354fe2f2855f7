import type { CompiledPolicy } from "../compile.js";
import type { Condition, Effect } from "../document/schema.js";
import type { Decision } from "../evaluate.js";
import type { AmountBand } from "./amount-band.js";
import {
  decisionOfEffect,
  type ApprovalSummary,
  type DecidedBy,
  type ExplanationContext,
} from "./context.js";
import type { Disclosure } from "./disclosure.js";
import type { DecisionFacts } from "./facts.js";
import { explanationMessage } from "./message.js";

export const AGENT_EXPLANATION_SCHEMA = "service.cloud/agent-explanation@1";

/** One condition of the deciding rule as the agent sees it; argument operands are withheld. */
export interface AgentCondition {
  field: "action" | "amount" | "arguments";
  op: string;
  pattern?: string;
  value?: string | string[];
  threshold?: string;
  currency?: string;
  path?: string;
}

export interface AgentExplanation {
  schema: typeof AGENT_EXPLANATION_SCHEMA;
  disclosure: "rule" | "conditions";
  policy: { name: string; version: number; digest: string };
  enforcement: "enforce" | "observe";
  decision: string;
  policy_effect: Effect;
  decided_by: DecidedBy;
  approval?: ApprovalSummary;
  message: string;
  conditions?: AgentCondition[];
  amount_band?: AmountBand;
}

function agentCondition(c: Condition): AgentCondition {
  switch (c.field) {
    case "action":
      return c.op === "matches"
        ? { field: "action", op: c.op, pattern: c.pattern }
        : { field: "action", op: c.op, value: c.value };
    case "amount":
      return c.op === "eq"
        ? { field: "amount", op: c.op, value: c.value, currency: c.currency }
        : { field: "amount", op: c.op, threshold: c.threshold, currency: c.currency };
    case "arguments":
      return { field: "arguments", op: c.op, path: c.path };
  }
}

export function decidedBy(decision: Decision, ctx: ExplanationContext): DecidedBy {
  if (ctx.check) return { kind: ctx.check, rule_id: null, description: null };
  return decision.rule_id === null
    ? { kind: "default", rule_id: null, description: null }
    : { kind: "rule", rule_id: decision.rule_id, description: decision.description };
}

export function approvalSummary(decision: Decision, ctx: ExplanationContext): ApprovalSummary | undefined {
  if (!decision.approvers || ctx.check) return undefined;
  return {
    roles: [...decision.approvers.roles],
    approver_count: decision.approvers.count,
    ttl_seconds: decision.approval_ttl_seconds ?? ctx.organization_approval_ttl_seconds ?? null,
  };
}

/**
 * The refusal detail for the agent (SPEC 2.9), or null at level `none`.
 * Built from the policy, the decision and the decision-time facts only: it
 * never receives the arguments, and names no user, delegation, other
 * candidate rule, rule that did not apply, or tool list.
 */
export function agentExplanation(
  policy: CompiledPolicy,
  decision: Decision,
  facts: DecisionFacts,
  level: Disclosure,
  ctx: ExplanationContext,
): AgentExplanation | null {
  if (level === "none") return null;
  const rule = decision.rule_index >= 0 && !ctx.check ? policy.rules[decision.rule_index]!.rule : undefined;
  const conditions = rule?.conditions ?? [];
  const detailed = level === "conditions";
  const out: AgentExplanation = {
    schema: AGENT_EXPLANATION_SCHEMA,
    disclosure: level,
    policy: { name: ctx.policy.name, version: ctx.policy.version, digest: ctx.policy.digest },
    enforcement: ctx.enforcement ?? "enforce",
    decision: ctx.decision ?? decisionOfEffect[decision.effect],
    policy_effect: decision.effect,
    decided_by: decidedBy(decision, ctx),
    message: explanationMessage(decision, conditions, ctx, { values: detailed, argumentOperands: false }),
  };
  const approval = approvalSummary(decision, ctx);
  if (approval) out.approval = approval;
  if (detailed) {
    out.conditions = conditions.map(agentCondition);
    if (facts.amount_band && !ctx.check) out.amount_band = { ...facts.amount_band };
  }
  return out;
}

/** The second text item of a refusal (SPEC 2.9). */
export function whyText(explanation: AgentExplanation): string {
  return `Why: ${explanation.message}`;
}
