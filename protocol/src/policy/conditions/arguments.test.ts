import { describe, expect, it } from "vitest";
import { compilePolicy } from "../compile.js";
import { parsePolicy } from "../validate.js";

function matches(condition: object, args: Record<string, unknown>): boolean {
  const p = compilePolicy(
    parsePolicy({
      default_effect: "allow",
      rules: [{ id: "r", effect: "deny", conditions: [{ field: "arguments", ...condition }] }],
    }),
  );
  return p.evaluate({ tool: "t", action: "a", arguments: args }).rule_id === "r";
}

describe("argument conditions", () => {
  it("eq compares JSON scalars strictly", () => {
    expect(matches({ path: "$.env", op: "eq", value: "prod" }, { env: "prod" })).toBe(true);
    expect(matches({ path: "$.n", op: "eq", value: 5 }, { n: 5 })).toBe(true);
    expect(matches({ path: "$.n", op: "eq", value: 5 }, { n: "5" })).toBe(false);
    expect(matches({ path: "$.f", op: "eq", value: true }, { f: true })).toBe(true);
    expect(matches({ path: "$.f", op: "eq", value: null }, { f: null })).toBe(true);
    expect(matches({ path: "$.f", op: "eq", value: null }, {})).toBe(false);
    expect(matches({ path: "$.o", op: "eq", value: "x" }, { o: ["x"] })).toBe(false);
  });

  it("reads nested members, indexes and quoted names", () => {
    const args = { to: { accounts: [{ iban: "DE89" }] }, "odd key": "v" };
    expect(matches({ path: "$.to.accounts[0].iban", op: "starts_with", value: "DE" }, args)).toBe(true);
    expect(matches({ path: '$["odd key"]', op: "eq", value: "v" }, args)).toBe(true);
  });

  it("in and not_in need a present scalar", () => {
    expect(matches({ path: "$.env", op: "in", value: ["dev", "test"] }, { env: "dev" })).toBe(true);
    expect(matches({ path: "$.env", op: "in", value: ["dev", 1] }, { env: 1 })).toBe(true);
    expect(matches({ path: "$.env", op: "in", value: ["dev"] }, { env: "prod" })).toBe(false);
    expect(matches({ path: "$.env", op: "not_in", value: ["dev"] }, { env: "prod" })).toBe(true);
    expect(matches({ path: "$.env", op: "not_in", value: ["dev"] }, { env: "dev" })).toBe(false);
    expect(matches({ path: "$.env", op: "not_in", value: ["dev"] }, {})).toBe(false);
    expect(matches({ path: "$.env", op: "not_in", value: ["dev"] }, { env: { x: 1 } })).toBe(false);
  });

  it("starts_with, ends_with and matches apply to text", () => {
    expect(
      matches({ path: "$.to", op: "ends_with", value: ["@rival.com", "@spam.io"] }, { to: "a@rival.com" }),
    ).toBe(true);
    expect(matches({ path: "$.to", op: "ends_with", value: "@rival.com" }, { to: "a@ok.com" })).toBe(false);
    expect(matches({ path: "$.p", op: "starts_with", value: "/etc/" }, { p: "/etc/passwd" })).toBe(true);
    expect(matches({ path: "$.p", op: "starts_with", value: "1" }, { p: 12 })).toBe(false);
    expect(matches({ path: "$.p", op: "matches", pattern: "/var/**/*.log" }, { p: "/var/a/b/x.log" })).toBe(
      true,
    );
    expect(matches({ path: "$.p", op: "matches", pattern: "/var/*.log" }, { p: "/var/a/x.log" })).toBe(false);
    expect(matches({ path: "$.p", op: "matches", pattern: "*" }, { p: 1 })).toBe(false);
  });

  it("numeric comparisons read whole numbers and decimal strings exactly", () => {
    expect(matches({ path: "$.qty", op: "gt", threshold: "10" }, { qty: 11 })).toBe(true);
    expect(matches({ path: "$.qty", op: "gt", threshold: "10" }, { qty: 10 })).toBe(false);
    expect(matches({ path: "$.qty", op: "gte", threshold: "10.5" }, { qty: "10.50" })).toBe(true);
    expect(matches({ path: "$.qty", op: "lt", threshold: "0" }, { qty: -1 })).toBe(true);
    expect(
      matches({ path: "$.qty", op: "lte", threshold: "9007199254740993" }, { qty: "9007199254740993" }),
    ).toBe(true);
    expect(matches({ path: "$.qty", op: "lt", threshold: "10" }, { qty: "ten" })).toBe(false);
    expect(matches({ path: "$.qty", op: "lt", threshold: "10" }, {})).toBe(false);
    expect(matches({ path: "$.qty", op: "lt", threshold: "10" }, { qty: true })).toBe(false);
  });

  it("exists tests presence; null is present", () => {
    expect(matches({ path: "$.cc", op: "exists" }, { cc: null })).toBe(true);
    expect(matches({ path: "$.cc", op: "exists", value: true }, {})).toBe(false);
    expect(matches({ path: "$.cc", op: "exists", value: false }, {})).toBe(true);
    expect(matches({ path: "$.cc", op: "exists", value: false }, { cc: "x" })).toBe(false);
    expect(matches({ path: "$", op: "exists" }, {})).toBe(true);
  });

  it("all conditions of a rule must hold", () => {
    const p = compilePolicy(
      parsePolicy({
        default_effect: "allow",
        rules: [
          {
            id: "r",
            effect: "deny",
            tools: ["db.*"],
            conditions: [
              { field: "action", op: "eq", value: "db.drop" },
              { field: "amount", op: "gt", threshold: "0", currency: "USD" },
              { field: "arguments", path: "$.env", op: "eq", value: "prod" },
            ],
          },
        ],
      }),
    );
    const base = {
      tool: "db.main",
      action: "db.drop",
      amount: "1",
      currency: "USD",
      arguments: { env: "prod" },
    };
    expect(p.evaluate(base).rule_id).toBe("r");
    expect(p.evaluate({ ...base, tool: "fs" }).rule_id).toBeNull();
    expect(p.evaluate({ ...base, action: "db.read" }).rule_id).toBeNull();
    expect(p.evaluate({ ...base, amount: "0" }).rule_id).toBeNull();
    expect(p.evaluate({ ...base, arguments: { env: "dev" } }).rule_id).toBeNull();
  });
});

describe("numeric comparisons of whole numbers against fractional thresholds", () => {
  it("agree with exact decimal comparison on both sides of zero", () => {
    const cases: [string, number][] = [
      ["10.5", 10],
      ["10.5", 11],
      ["-10.5", -10],
      ["-10.5", -11],
      ["0.1", 0],
      ["-0.1", 0],
      ["7", 7],
      ["-7", -7],
    ];
    for (const [t, n] of cases) {
      for (const op of ["gt", "gte", "lt", "lte"]) {
        const exact = matches({ path: "$.n", op, threshold: t }, { n: String(n) });
        expect(matches({ path: "$.n", op, threshold: t }, { n }), `${n} ${op} ${t}`).toBe(exact);
      }
    }
  });
});
