import { scaledAmount, type CompiledPolicy } from "../compile.js";
import type { Decision, PolicyInput } from "../evaluate.js";
import { amountBandFor, type AmountBand } from "./amount-band.js";

/**
 * What explanations may know about a decided call, fixed at decision time so
 * the same recorded decision is always explained the same way (SPEC 2.9).
 * Holds no argument values: the agent explanation is built from these facts
 * alone and never sees the arguments.
 */
export interface DecisionFacts {
  agent: { id: string; name?: string } | null;
  tool: string;
  action: string;
  amount: string | null;
  currency: string | null;
  environment: "live" | "test";
  /** Range of amounts giving this same decision; null when the call has no amount. */
  amount_band: AmountBand | null;
}

export interface DecisionWithFacts {
  decision: Decision;
  facts: DecisionFacts;
}

/** Evaluation plus the facts explanations need; costs more than evaluate() (the amount band). */
export function decide(policy: CompiledPolicy, input: PolicyInput): DecisionWithFacts {
  const decision = policy.evaluate(input);
  const amount = scaledAmount(input);
  const currency = input.currency ?? null;
  const args = input.arguments ?? {};
  return {
    decision,
    facts: {
      agent: input.agent ?? null,
      tool: input.tool,
      action: input.action,
      amount: input.amount ?? null,
      currency,
      environment: input.environment ?? "live",
      amount_band:
        amount !== null && currency !== null
          ? amountBandFor(policy, input.tool, input.action, amount, currency, args)
          : null,
    },
  };
}
