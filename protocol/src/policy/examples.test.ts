import { describe, expect, it } from "vitest";
import { compilePolicy } from "./compile.js";
import { runExamples, validateExamples, type PolicyExample } from "./examples.js";
import { parsePolicy } from "./validate.js";

const policy = compilePolicy(
  parsePolicy({
    default_effect: "deny",
    rules: [
      { id: "reads", effect: "allow", conditions: [{ field: "action", op: "matches", pattern: "*.read" }] },
      {
        id: "spend",
        effect: "require_approval",
        conditions: [{ field: "amount", op: "gt", threshold: "100", currency: "USD" }],
        approvers: { roles: ["admin"] },
      },
      {
        id: "prod",
        effect: "deny",
        tools: ["db"],
        conditions: [{ field: "arguments", path: "$.env", op: "eq", value: "prod" }],
      },
    ],
  }),
);
const ex = (e: Partial<PolicyExample>): PolicyExample => ({
  id: "e",
  action: "x.read",
  tool: "t",
  expected_outcome: "allowed",
  expected_rule: "reads",
  ...e,
});

describe("examples", () => {
  it("pass only when outcome and deciding rule both match", () => {
    const r = runExamples(policy, [
      ex({ id: "ok" }),
      ex({ id: "wrong-rule", expected_rule: "" }),
      ex({ id: "wrong-outcome", expected_outcome: "denied" }),
      ex({ id: "default", action: "x.write", expected_outcome: "denied", expected_rule: "" }),
      ex({
        id: "approval",
        action: "pay",
        amount: "150.00",
        currency: "USD",
        expected_outcome: "requires_approval",
        expected_rule: "spend",
      }),
      ex({ id: "no-expectation", expected_outcome: "none", expected_rule: "" }),
    ]);
    expect(r.results.map((x) => [x.id, x.passed])).toEqual([
      ["ok", true],
      ["wrong-rule", false],
      ["wrong-outcome", false],
      ["default", true],
      ["approval", true],
      ["no-expectation", null],
    ]);
    expect([r.passed, r.failed, r.without_expectation]).toEqual([3, 2, 1]);
    expect(r.results[1]!.actual).toEqual({ outcome: "allowed", rule_id: "reads" });
  });

  it("evaluate without arguments and say when arguments could change the decision", () => {
    const r = runExamples(policy, [ex({ id: "db", tool: "db", action: "db.read", expected_rule: "reads" })]);
    expect(r.results[0]).toMatchObject({ passed: true, depends_on_arguments: true });
  });

  it("validate: at most 200, unique ids, amount with currency, no arguments", () => {
    expect(validateExamples([ex({})]).ok).toBe(true);
    const many = Array.from({ length: 201 }, (_, i) => ex({ id: `e${i}` }));
    expect(validateExamples(many).ok).toBe(false);
    expect(validateExamples(many.slice(0, 200)).ok).toBe(true);
    const dup = validateExamples([ex({}), ex({})]);
    expect(!dup.ok && dup.issues[0]!.code).toBe("duplicate_example_id");
    const cur = validateExamples([ex({ amount: "5" })]);
    expect(!cur.ok && cur.issues[0]!.code).toBe("amount_needs_currency");
    const args = validateExamples([{ ...ex({}), arguments: {} }]);
    expect(!args.ok && args.issues[0]!.code).toBe("unrecognized_keys");
    const bad = validateExamples([ex({ amount: "1e5", currency: "USD" })]);
    expect(bad.ok).toBe(false);
  });
});
