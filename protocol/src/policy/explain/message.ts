import type { Condition } from "../document/schema.js";
import type { Decision } from "../evaluate.js";
import type { ExplanationContext } from "./context.js";

/**
 * The one-line `message` of explanations. `values` false names only the
 * fields a rule looks at (disclosure `rule`); true adds operators and policy
 * values. Argument operands are never spelled out to the agent: only path
 * and operator, so nothing an agent sent is ever echoed back.
 */
const phrase = { allow: "Allowed", require_approval: "Needs approval", deny: "Denied" } as const;

const quote = (v: unknown) => JSON.stringify(v);

export function describeCondition(c: Condition, argumentOperands: boolean): string {
  switch (c.field) {
    case "action":
      return `action ${c.op} ${quote(c.op === "matches" ? c.pattern : c.value)}`;
    case "amount":
      return `amount ${c.op} ${c.op === "eq" ? c.value : c.threshold} ${c.currency}`;
    case "arguments": {
      if (!argumentOperands || c.op === "exists")
        return `argument ${c.path} ${c.op}${c.op === "exists" && c.value === false ? " false" : ""}`;
      const operand = c.op === "matches" ? c.pattern : "threshold" in c ? c.threshold : c.value;
      return `argument ${c.path} ${c.op} ${quote(operand)}`;
    }
  }
}

function fieldsOf(conditions: readonly Condition[]): string {
  const fields = [...new Set(conditions.map((c) => (c.field === "arguments" ? "arguments" : c.field)))];
  return fields.join(", ");
}

export function explanationMessage(
  decision: Decision,
  conditions: readonly Condition[],
  ctx: ExplanationContext,
  opts: { values: boolean; argumentOperands: boolean },
): string {
  const head = phrase[decision.effect];
  let text: string;
  if (ctx.check) text = `${head} by the ${ctx.check} check.`;
  else if (decision.rule_id === null) text = `${head} by the policy default: no rule applies to this call.`;
  else if (conditions.length === 0)
    text = `${head} by policy rule ${quote(decision.rule_id)}, which applies to every call of its tools.`;
  else if (!opts.values)
    text = `${head} by policy rule ${quote(decision.rule_id)} (conditions on ${fieldsOf(conditions)}).`;
  else
    text = `${head} by policy rule ${quote(decision.rule_id)}: ${conditions.map((c) => describeCondition(c, opts.argumentOperands)).join(" and ")}.`;
  if (decision.approvers && !ctx.check) {
    text += ` Approval by ${decision.approvers.count} of: ${decision.approvers.roles.join(", ")}.`;
  }
  return text;
}
