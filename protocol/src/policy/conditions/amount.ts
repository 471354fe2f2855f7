import { toScaled } from "../decimal.js";
import type { AmountCondition } from "../document/schema.js";
import { compareScaled } from "./numeric.js";

/**
 * Conditions on the call's amount. An amount condition names its currency and
 * holds only for an amount in that currency: a call without an amount, or in
 * another currency, never satisfies it (there is no exchange rate here).
 */
export interface CompiledAmountCondition {
  currency: string;
  op: AmountCondition["op"];
  /** Bound or value in 10^-40 units. */
  threshold: bigint;
  test(amount: bigint | null, currency: string | null): boolean;
}

export function compileAmountCondition(c: AmountCondition): CompiledAmountCondition {
  const text = c.op === "eq" ? c.value : c.threshold;
  const threshold = toScaled(text);
  if (threshold === undefined) throw new TypeError("compileAmountCondition: document not validated");
  const { currency, op } = c;
  return {
    currency,
    op,
    threshold,
    test: (amount, cur) => amount !== null && cur === currency && compareScaled(op, amount, threshold),
  };
}
