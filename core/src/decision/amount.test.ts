import { describe, expect, it } from "vitest";
import { amountMapping, mapAmount } from "./amount.js";

describe("amount mapping", () => {
  const byPath = { amount_path: "$.payment.amount", currency_path: "payment.currency" };
  const fixed = { amount_path: "total", currency: "EUR" };

  it("reads whole numbers and exact decimal strings with their currency", () => {
    expect(mapAmount(byPath, { payment: { amount: 1250, currency: "USD" } })).toEqual({
      amount: "1250",
      currency: "USD",
    });
    expect(mapAmount(byPath, { payment: { amount: "0.000000001", currency: "USD" } })).toEqual({
      amount: "0.000000001",
      currency: "USD",
    });
    expect(mapAmount(fixed, { total: "-12.5" })).toEqual({ amount: "-12.5", currency: "EUR" });
    expect(mapAmount(fixed, { total: `${"9".repeat(40)}.${"1".repeat(40)}` })?.toString()).not.toBe(
      "invalid",
    );
  });

  it("is null for a tool without mapping", () => {
    expect(mapAmount(null, { total: 1 })).toBeNull();
  });

  it("is invalid for a missing, malformed, oversized or currency-less amount", () => {
    for (const args of [
      {},
      { total: "1e5" },
      { total: "1,000" },
      { total: " 1" },
      { total: true },
      { total: `${"9".repeat(41)}` },
      { total: `1.${"0".repeat(41)}` },
      { total: ["1"] },
    ]) {
      expect(mapAmount(fixed, args), JSON.stringify(args)).toBe("invalid");
    }
    expect(mapAmount(byPath, { payment: { amount: 1 } })).toBe("invalid");
    expect(mapAmount(byPath, { payment: { amount: 1, currency: "usd" } })).toBe("invalid");
    expect(mapAmount(byPath, { payment: "1" })).toBe("invalid");
  });

  it("never follows inherited members", () => {
    expect(mapAmount({ amount_path: "constructor", currency: "USD" }, {})).toBe("invalid");
  });

  it("requires exactly one way to find the currency", () => {
    expect(amountMapping.safeParse({ amount_path: "a" }).success).toBe(false);
    expect(amountMapping.safeParse({ amount_path: "a", currency: "USD", currency_path: "c" }).success).toBe(
      false,
    );
    expect(amountMapping.safeParse(fixed).success).toBe(true);
  });
});
