import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../compile.js";
import { compareDecimal } from "../decimal.js";
import { parsePolicy } from "../validate.js";
import type { AmountBand } from "./amount-band.js";
import { decide } from "./facts.js";

const policy = compilePolicy(
  parsePolicy({
    default_effect: "deny",
    rules: [
      {
        id: "small",
        effect: "allow",
        conditions: [{ field: "amount", op: "lte", threshold: "100", currency: "USD" }],
      },
      {
        id: "medium",
        effect: "require_approval",
        conditions: [
          { field: "amount", op: "gt", threshold: "100", currency: "USD" },
          { field: "amount", op: "lt", threshold: "1000", currency: "USD" },
        ],
        approvers: { roles: ["admin"] },
      },
      {
        id: "exact",
        effect: "deny",
        conditions: [{ field: "amount", op: "eq", value: "500", currency: "USD" }],
      },
      {
        id: "euro",
        effect: "allow",
        conditions: [{ field: "amount", op: "lt", threshold: "50", currency: "EUR" }],
      },
      {
        id: "negative",
        effect: "deny",
        conditions: [{ field: "amount", op: "lt", threshold: "0", currency: "USD" }],
      },
    ],
  }),
);
const band = (amount: string, currency = "USD") =>
  decide(policy, { tool: "t", action: "a", amount, currency }).facts.amount_band;

function inside(b: AmountBand, x: string): boolean {
  return (
    (b.gt === undefined || compareDecimal(x, b.gt) > 0) &&
    (b.gte === undefined || compareDecimal(x, b.gte) >= 0) &&
    (b.lt === undefined || compareDecimal(x, b.lt) < 0) &&
    (b.lte === undefined || compareDecimal(x, b.lte) <= 0)
  );
}

describe("amount band", () => {
  it("bounds the decision with inclusive and exclusive edges", () => {
    expect(band("50")).toEqual({ currency: "USD", gte: "0", lte: "100" });
    expect(band("100")).toEqual({ currency: "USD", gte: "0", lte: "100" });
    expect(band("100.01")).toEqual({ currency: "USD", gt: "100", lt: "500" });
    expect(band("500")).toEqual({ currency: "USD", gte: "500", lte: "500" });
    expect(band("700")).toEqual({ currency: "USD", gt: "500", lt: "1000" });
    expect(band("5000")).toEqual({ currency: "USD", gte: "1000" });
    expect(band("-3")).toEqual({ currency: "USD", lt: "0" });
  });

  it("looks only at the call's currency", () => {
    expect(band("10", "EUR")).toEqual({ currency: "EUR", lt: "50" });
    expect(band("10", "JPY")).toEqual({ currency: "JPY" });
  });

  it("is absent when the call has no amount", () => {
    expect(decide(policy, { tool: "t", action: "a" }).facts.amount_band).toBeNull();
  });

  it("really bounds the decision: any amount inside gives the same decision", () => {
    const amount = fc
      .tuple(fc.integer({ min: -2000, max: 2000 }), fc.constantFrom("", ".5", ".01", ".999"))
      .map(([w, f]) => `${w}${f}`);
    const args = fc.record({ n: fc.integer({ min: 0, max: 3 }) });
    const withArgs = compilePolicy(
      parsePolicy({
        rules: [
          ...policy.document.rules,
          {
            id: "arg-cap",
            effect: "deny",
            conditions: [
              { field: "arguments", path: "$.n", op: "eq", value: 2 },
              { field: "amount", op: "gte", threshold: "250", currency: "USD" },
            ],
          },
        ],
      }),
    );
    fc.assert(
      fc.property(amount, amount, args, (a, b, argv) => {
        const input = { tool: "t", action: "a", currency: "USD", arguments: argv };
        const { decision, facts } = decide(withArgs, { ...input, amount: a });
        expect(inside(facts.amount_band!, a)).toBe(true);
        if (inside(facts.amount_band!, b)) {
          const other = withArgs.evaluate({ ...input, amount: b });
          expect([other.effect, other.rule_id]).toEqual([decision.effect, decision.rule_id]);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("handles thresholds one unit apart at 40 decimals", () => {
    const unit = `0.${"0".repeat(39)}1`;
    const p = compilePolicy(
      parsePolicy({
        default_effect: "allow",
        rules: [
          {
            id: "a",
            effect: "deny",
            conditions: [
              { field: "amount", op: "gt", threshold: "0", currency: "USD" },
              { field: "amount", op: "lt", threshold: `0.${"0".repeat(38)}2`, currency: "USD" },
            ],
          },
        ],
      }),
    );
    expect(decide(p, { tool: "t", action: "a", amount: unit, currency: "USD" }).facts.amount_band).toEqual({
      currency: "USD",
      gt: "0",
      lt: `0.${"0".repeat(38)}2`,
    });
  });
});
