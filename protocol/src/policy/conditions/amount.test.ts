import { describe, expect, it } from "vitest";
import { compilePolicy } from "../compile.js";
import { parsePolicy } from "../validate.js";

function matches(condition: object, amount: string | null, currency: string | null = "USD"): boolean {
  const p = compilePolicy(
    parsePolicy({
      default_effect: "allow",
      rules: [{ id: "r", effect: "deny", conditions: [{ field: "amount", currency: "USD", ...condition }] }],
    }),
  );
  return p.evaluate({ tool: "t", action: "a", amount, currency }).rule_id === "r";
}

describe("amount conditions", () => {
  it("gt, gte, lt, lte compare exact decimals", () => {
    expect(matches({ op: "gt", threshold: "100" }, "100.0000000001")).toBe(true);
    expect(matches({ op: "gt", threshold: "100" }, "100.00")).toBe(false);
    expect(matches({ op: "gte", threshold: "100" }, "100.00")).toBe(true);
    expect(matches({ op: "gte", threshold: "100" }, "99.99")).toBe(false);
    expect(matches({ op: "lt", threshold: "0.3" }, "0.29999999999999999999")).toBe(true);
    expect(matches({ op: "lt", threshold: "0.3" }, "0.3")).toBe(false);
    expect(matches({ op: "lte", threshold: "-5" }, "-5")).toBe(true);
    expect(matches({ op: "lte", threshold: "-5" }, "-4.9")).toBe(false);
  });

  it("eq compares values, not spellings", () => {
    expect(matches({ op: "eq", value: "12.50" }, "12.5")).toBe(true);
    expect(matches({ op: "eq", value: "12.50" }, "12.51")).toBe(false);
  });

  it("holds only for an amount in the condition's currency", () => {
    expect(matches({ op: "gt", threshold: "1" }, "500", "EUR")).toBe(false);
    expect(matches({ op: "gt", threshold: "1" }, "500", null)).toBe(false);
    expect(matches({ op: "lt", threshold: "1" }, null)).toBe(false);
  });

  it("handles 40 digits before and after the point", () => {
    const big = "9".repeat(40);
    expect(matches({ op: "lt", threshold: `${big}.${big}` }, big)).toBe(true);
    expect(matches({ op: "gt", threshold: `0.${"0".repeat(39)}1` }, `0.${"0".repeat(39)}2`)).toBe(true);
  });
});
