import { describe, expect, it } from "vitest";
import { ServiceError } from "../../errors/index.js";
import { compilePolicy } from "../compile.js";
import { parsePolicy } from "../validate.js";
import { simulate, type RecordedInput } from "./simulate.js";

const baseline = compilePolicy(
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
        id: "small",
        effect: "allow",
        conditions: [{ field: "amount", op: "lte", threshold: "100", currency: "USD" }],
      },
    ],
  }),
);
const candidate = compilePolicy(
  parsePolicy({
    default_effect: "deny",
    rules: [
      { id: "reads", effect: "allow", conditions: [{ field: "action", op: "matches", pattern: "*.read" }] },
      {
        id: "spend",
        effect: "require_approval",
        conditions: [{ field: "amount", op: "gt", threshold: "50", currency: "USD" }],
        approvers: { roles: ["owner"] },
      },
      {
        id: "small",
        effect: "allow",
        conditions: [{ field: "amount", op: "lte", threshold: "50", currency: "USD" }],
      },
      { id: "writes", effect: "allow", conditions: [{ field: "action", op: "matches", pattern: "*.write" }] },
      {
        id: "env",
        effect: "deny",
        tools: ["db"],
        conditions: [{ field: "arguments", path: "$.env", op: "eq", value: "prod" }],
      },
    ],
  }),
);

const inputs: RecordedInput[] = [
  { tool: "t", action: "doc.read", count: 10 },
  { tool: "t", action: "doc.read" },
  { tool: "t", action: "pay", amount: "75", currency: "USD", count: 3 },
  { tool: "t", action: "pay", amount: "75.00", currency: "USD" },
  { tool: "t", action: "pay", amount: "500", currency: "USD", count: 2 },
  { tool: "t", action: "doc.write", count: 4 },
  { tool: "db", action: "db.read", count: 5 },
  { tool: "t", action: "pay", evaluable: false, count: 7 },
  { tool: "t", action: "pay", amount: "1e5", currency: "USD" },
];

describe("simulation", () => {
  it("counts changes against another version, with the baseline-by-candidate matrix", () => {
    const r = simulate(candidate, { kind: "policy", policy: baseline }, inputs);
    expect(r.counts).toEqual({
      recorded: 34,
      evaluated: 21,
      not_evaluable: 8,
      argument_dependent: 5,
      less_restricted: 4,
      more_restricted: 4,
      other_rule: 0,
      other_approvers: 2,
      same: 11,
    });
    expect(r.matrix).toEqual({
      allow: { allow: 11, require_approval: 4, deny: 0 },
      require_approval: { allow: 0, require_approval: 2, deny: 0 },
      deny: { allow: 4, require_approval: 0, deny: 0 },
    });
    expect(r.candidate_effects).toEqual({ allow: 15, require_approval: 6, deny: 0 });
    expect(r.distinct_inputs).toBe(5);
    expect(r.rule_evaluations).toBe(5 * 8);
    expect(r.differences.map((d) => [d.action, d.amount, d.count, d.change])).toEqual([
      ["pay", "75", 4, "more_restricted"],
      ["pay", "500", 2, "other_approvers"],
      ["doc.write", null, 4, "less_restricted"],
    ]);
  });

  it("compares with the recorded effect, and reports other rules", () => {
    const r = simulate(candidate, { kind: "recorded" }, [
      { tool: "t", action: "doc.read", recorded: { effect: "allow", rule_id: "old-read" }, count: 2 },
      { tool: "t", action: "doc.read", recorded: { effect: "allow", rule_id: "reads" } },
      { tool: "t", action: "doc.read" },
    ]);
    expect(r.counts).toMatchObject({ recorded: 4, evaluated: 3, not_evaluable: 1, other_rule: 2, same: 1 });
  });

  it("without a baseline gives only the candidate's effects", () => {
    const r = simulate(candidate, { kind: "none" }, inputs);
    expect(r.matrix).toBeNull();
    expect(r.counts).toMatchObject({ evaluated: 21, less_restricted: 0, more_restricted: 0, same: 0 });
    expect(r.candidate_effects.allow).toBe(15);
  });

  it("caps the list of differences, never the counts", () => {
    const many = Array.from({ length: 30 }, (_, i) => ({ tool: "t", action: `x${i}.write` }));
    const r = simulate(candidate, { kind: "policy", policy: baseline }, many, { maxDifferences: 10 });
    expect(r.differences).toHaveLength(10);
    expect(r.differences_truncated).toBe(true);
    expect(r.counts.less_restricted).toBe(30);
  });

  it("refuses more than 20000 distinct inputs with REPORT_TOO_LARGE", () => {
    const distinct = (n: number) => Array.from({ length: n }, (_, i) => ({ tool: "t", action: `a${i}` }));
    const one = compilePolicy(parsePolicy({ rules: [] }));
    expect(simulate(one, { kind: "none" }, distinct(20_000)).distinct_inputs).toBe(20_000);
    try {
      simulate(one, { kind: "none" }, distinct(20_001));
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ServiceError);
      expect((e as ServiceError).code).toBe("REPORT_TOO_LARGE");
      expect((e as ServiceError).details).toEqual({ reason: "distinct_inputs", limit: 20_000 });
    }
  });

  it("refuses more than 2000000 rule evaluations with REPORT_TOO_LARGE", () => {
    const rules = (n: number) =>
      compilePolicy(
        parsePolicy({
          rules: Array.from({ length: n }, (_, i) => ({ id: `r${i}`, effect: "deny", tools: [`t${i}`] })),
        }),
      );
    const inputs = Array.from({ length: 10_000 }, (_, i) => ({ tool: "x", action: `a${i}` }));
    expect(simulate(rules(100), { kind: "policy", policy: rules(100) }, inputs).rule_evaluations).toBe(
      2_000_000,
    );
    expect(() => simulate(rules(101), { kind: "policy", policy: rules(100) }, inputs)).toThrow(
      expect.objectContaining({
        code: "REPORT_TOO_LARGE",
        details: { reason: "rule_evaluations", limit: 2_000_000 },
      }),
    );
  });
});
