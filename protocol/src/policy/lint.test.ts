import { describe, expect, it } from "vitest";
import { lintPolicy, type LintContext } from "./lint.js";
import { parsePolicy } from "./validate.js";

const lint = (doc: unknown, context?: LintContext) =>
  lintPolicy(parsePolicy(doc), context).warnings.map((w) => `${w.path} ${w.code}`);
const amount = (op: string, threshold: string, currency = "USD") => ({
  field: "amount",
  op,
  threshold,
  currency,
});
const arg = (path: string, op: string, extra: object = {}) => ({ field: "arguments", path, op, ...extra });

describe("lint", () => {
  it("is quiet for a sensible document", () => {
    expect(
      lint({
        rules: [
          { id: "reads", effect: "allow", tools: ["crm.*"] },
          { id: "cap", effect: "allow", conditions: [amount("lte", "100")] },
          { id: "prod", effect: "deny", conditions: [arg("$.env", "eq", { value: "prod" })] },
        ],
      }),
    ).toEqual([]);
  });

  describe("rules that can never match", () => {
    it("empty amount ranges and two currencies", () => {
      expect(
        lint({ rules: [{ id: "a", effect: "deny", conditions: [amount("gt", "100"), amount("lt", "50")] }] }),
      ).toEqual(["rules.0 never_matches"]);
      expect(
        lint({ rules: [{ id: "a", effect: "deny", conditions: [amount("gt", "5"), amount("lte", "5")] }] }),
      ).toEqual(["rules.0 never_matches"]);
      expect(
        lint({
          rules: [{ id: "a", effect: "deny", conditions: [amount("gt", "1"), amount("gt", "1", "EUR")] }],
        }),
      ).toEqual(["rules.0 never_matches"]);
    });

    it("contradicting action and argument conditions", () => {
      expect(
        lint({
          rules: [
            {
              id: "a",
              effect: "deny",
              conditions: [
                { field: "action", op: "eq", value: "x.read" },
                { field: "action", op: "matches", pattern: "*.write" },
              ],
            },
          ],
        }),
      ).toEqual(["rules.0 never_matches"]);
      expect(
        lint({
          rules: [
            {
              id: "a",
              effect: "deny",
              conditions: [
                arg("$.e", "in", { value: ["a", "b"] }),
                arg("$.e", "not_in", { value: ["a", "b"] }),
              ],
            },
          ],
        }),
      ).toEqual(["rules.0 never_matches"]);
      expect(
        lint({
          rules: [
            {
              id: "a",
              effect: "deny",
              conditions: [arg("$.e", "exists", { value: false }), arg("$.e", "eq", { value: 1 })],
            },
          ],
        }),
      ).toEqual(["rules.0 never_matches"]);
      expect(
        lint({
          rules: [
            {
              id: "a",
              effect: "deny",
              conditions: [arg("$.n", "gte", { threshold: "10" }), arg("$.n", "lt", { threshold: "10" })],
            },
          ],
        }),
      ).toEqual(["rules.0 never_matches"]);
    });

    it("no known tool has the rule's tools and action", () => {
      const context = { tools: [{ tool: "crm.read", action: "crm.read" }] };
      expect(lint({ rules: [{ id: "a", effect: "allow", tools: ["db.*"] }] }, context)).toEqual([
        "rules.0 never_matches",
      ]);
      expect(lint({ rules: [{ id: "a", effect: "allow", tools: ["crm.*"] }] }, context)).toEqual([]);
    });
  });

  describe("shadowed rules", () => {
    it("a stricter rule covering every call of a later one", () => {
      expect(
        lint({
          rules: [
            { id: "allow-pay", effect: "allow", tools: ["pay"], conditions: [amount("lte", "10")] },
            { id: "deny-pay", effect: "deny", tools: ["pay", "refund"] },
          ],
        }),
      ).toEqual(["rules.0 shadowed"]);
    });

    it("an earlier rule of the same effect covering a later one", () => {
      expect(
        lint({
          rules: [
            {
              id: "wide",
              effect: "require_approval",
              conditions: [amount("gt", "100")],
              approvers: { roles: ["admin"] },
            },
            {
              id: "narrow",
              effect: "require_approval",
              tools: ["pay"],
              conditions: [amount("gte", "1000"), arg("$.x", "exists")],
              approvers: { roles: ["owner"] },
            },
          ],
        }),
      ).toEqual(["rules.1 shadowed"]);
    });

    it("implied conditions: eq implies matches, in implies starts_with, a value implies exists", () => {
      expect(
        lint({
          rules: [
            {
              id: "s",
              effect: "deny",
              conditions: [
                { field: "action", op: "matches", pattern: "db.*" },
                arg("$.env", "starts_with", { value: "pr" }),
                arg("$.id", "exists"),
              ],
            },
            {
              id: "r",
              effect: "allow",
              conditions: [
                { field: "action", op: "eq", value: "db.drop" },
                arg("$.env", "in", { value: ["prod", "preview"] }),
                arg("$.id", "gt", { threshold: "0" }),
              ],
            },
          ],
        }),
      ).toEqual(["rules.1 shadowed"]);
    });

    it("not when the earlier rule is narrower or comes later with the same effect", () => {
      expect(
        lint({
          rules: [
            { id: "narrow", effect: "deny", tools: ["pay"], conditions: [amount("gt", "1000")] },
            { id: "wide", effect: "deny", tools: ["pay"], conditions: [amount("gt", "100")] },
          ],
        }),
      ).toEqual([]);
    });
  });

  describe("conditions on fields a decision cannot see", () => {
    it("a path deeper than arguments can be nested", () => {
      expect(
        lint({ rules: [{ id: "a", effect: "deny", conditions: [arg("$" + ".a".repeat(28), "exists")] }] }),
      ).toEqual(["rules.0.conditions.0 invisible_field"]);
      expect(
        lint({ rules: [{ id: "a", effect: "deny", conditions: [arg("$" + ".a".repeat(27), "exists")] }] }),
      ).toEqual([]);
    });

    it("a value with U+0000, which arguments never hold", () => {
      expect(
        lint({ rules: [{ id: "a", effect: "deny", conditions: [arg("$.a", "eq", { value: "x\u0000" })] }] }),
      ).toEqual(["rules.0.conditions.0 invisible_field"]);
    });

    it("paths outside the tools' input schemas, and amounts on tools without amounts", () => {
      const context = {
        tools: [
          {
            tool: "db",
            action: "db.query",
            input_schema: {
              type: "object",
              properties: { sql: { type: "string" } },
              additionalProperties: false,
            },
          },
        ],
      };
      expect(
        lint(
          {
            rules: [
              { id: "a", effect: "deny", tools: ["db"], conditions: [arg("$.env", "eq", { value: "prod" })] },
            ],
          },
          context,
        ),
      ).toEqual(["rules.0.conditions.0 invisible_field"]);
      expect(
        lint(
          {
            rules: [
              {
                id: "a",
                effect: "deny",
                tools: ["db"],
                conditions: [arg("$.sql", "starts_with", { value: "DROP" })],
              },
            ],
          },
          context,
        ),
      ).toEqual([]);
      expect(
        lint(
          { rules: [{ id: "a", effect: "deny", tools: ["db"], conditions: [amount("gt", "1")] }] },
          context,
        ),
      ).toEqual(["rules.0 invisible_field"]);
    });
  });

  describe("unbounded amounts", () => {
    it("an allow rule with only a lower amount bound", () => {
      expect(lint({ rules: [{ id: "a", effect: "allow", conditions: [amount("gt", "0")] }] })).toEqual([
        "rules.0 unbounded_amount",
      ]);
    });

    it("allowing amount-carrying tools with no bound, or by default", () => {
      const context = { tools: [{ tool: "pay", action: "pay.send", amount: true }] };
      expect(lint({ rules: [{ id: "a", effect: "allow", tools: ["pay"] }] }, context)).toEqual([
        "rules.0 unbounded_amount",
      ]);
      expect(lint({ default_effect: "allow", rules: [] }, context)).toEqual([
        "default_effect unbounded_amount",
      ]);
    });
  });

  it("a guard on an allow rule has no effect", () => {
    expect(lint({ rules: [{ id: "a", effect: "allow", tools: ["x"], guard: true }] })).toEqual([
      "rules.0.guard guard_without_effect",
    ]);
  });

  it("gives at most 100 warnings and counts the rest", () => {
    const rules = Array.from({ length: 150 }, (_, i) => ({
      id: `r${i}`,
      effect: "allow",
      conditions: [amount("gt", String(i))],
    }));
    const r = lintPolicy(parsePolicy({ rules }));
    expect(r.warnings).toHaveLength(100);
    expect(r.total).toBeGreaterThan(100);
  });
});
