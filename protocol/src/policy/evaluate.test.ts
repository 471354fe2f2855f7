import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "./compile.js";
import { parsePolicy } from "./validate.js";
import { evaluatePolicy, PolicyInputError, type PolicyInput } from "./evaluate.js";

const call = (extra: Partial<PolicyInput> = {}): PolicyInput => ({
  tool: "pay.send",
  action: "payments.send",
  ...extra,
});

describe("precedence", () => {
  const policy = compilePolicy(
    parsePolicy({
      default_effect: "allow",
      rules: [
        { id: "allow-all-pay", effect: "allow", tools: ["pay.*"] },
        {
          id: "approve-big",
          effect: "require_approval",
          conditions: [{ field: "amount", op: "gt", threshold: "100", currency: "USD" }],
          approvers: { roles: ["admin"] },
        },
        {
          id: "approve-bigger",
          effect: "require_approval",
          conditions: [{ field: "amount", op: "gt", threshold: "1000", currency: "USD" }],
          approvers: { roles: ["owner"], count: 2 },
          approval_ttl_seconds: 600,
        },
        {
          id: "deny-huge",
          effect: "deny",
          conditions: [{ field: "amount", op: "gt", threshold: "10000", currency: "USD" }],
        },
      ],
    }),
  );
  const at = (amount: string) => policy.evaluate(call({ amount, currency: "USD" }));

  it("deny wins over require_approval and allow, wherever it stands", () => {
    expect(at("20000")).toMatchObject({
      effect: "deny",
      rule_id: "deny-huge",
      approvers: null,
      relaxable: false,
    });
  });

  it("require_approval wins over allow; among equals the first in document order", () => {
    expect(at("5000")).toMatchObject({
      effect: "require_approval",
      rule_id: "approve-big",
      approvers: { roles: ["admin"], count: 1 },
      approval_ttl_seconds: null,
    });
  });

  it("allow decides when nothing stricter matches", () => {
    expect(at("50")).toMatchObject({ effect: "allow", rule_id: "allow-all-pay" });
  });

  it("the default decides when no rule matches, with rule_id null", () => {
    expect(policy.evaluate(call({ tool: "mail.send", action: "mail.send" }))).toMatchObject({
      effect: "allow",
      rule_id: null,
      rule_index: -1,
    });
  });

  it("the default effect is deny when the document names none", () => {
    expect(evaluatePolicy(parsePolicy({ rules: [] }), call())).toMatchObject({
      effect: "deny",
      rule_id: null,
      relaxable: true,
    });
  });

  it("a require_approval default gets owner and admin unless it names approvers", () => {
    expect(
      evaluatePolicy(parsePolicy({ default_effect: "require_approval", rules: [] }), call()).approvers,
    ).toEqual({ roles: ["owner", "admin"], count: 1 });
    const named = parsePolicy({
      default_effect: "require_approval",
      default_approvers: { roles: ["approver"], count: 2 },
      default_approval_ttl_seconds: 300,
      rules: [],
    });
    expect(evaluatePolicy(named, call())).toMatchObject({
      approvers: { roles: ["approver"], count: 2 },
      approval_ttl_seconds: 300,
    });
  });

  it("rule order decides among rules of one effect", () => {
    const doc = (ids: string[]) => parsePolicy({ rules: ids.map((id) => ({ id, effect: "deny" })) });
    expect(evaluatePolicy(doc(["first", "second"]), call()).rule_id).toBe("first");
    expect(evaluatePolicy(doc(["second", "first"]), call()).rule_id).toBe("second");
  });
});

describe("revision 2: description and guard", () => {
  const policy = compilePolicy(
    parsePolicy({
      rules: [
        {
          id: "guarded",
          effect: "require_approval",
          guard: true,
          description: "Refunds need a person",
          tools: ["refund"],
          approvers: { roles: ["owner"] },
        },
        { id: "plain", effect: "require_approval", tools: ["charge"], approvers: { roles: ["owner"] } },
        { id: "no-delete", effect: "deny", tools: ["delete"], description: "Never delete" },
      ],
    }),
  );

  it("carries the description and guard on the decision", () => {
    expect(policy.evaluate(call({ tool: "refund" }))).toMatchObject({
      description: "Refunds need a person",
      guard: true,
      relaxable: false,
    });
    expect(policy.evaluate(call({ tool: "delete" }))).toMatchObject({
      description: "Never delete",
      guard: false,
    });
  });

  it("only unguarded require_approval rules and the default may be relaxed by an observe window", () => {
    expect(policy.evaluate(call({ tool: "charge" })).relaxable).toBe(true);
    expect(policy.evaluate(call({ tool: "refund" })).relaxable).toBe(false);
    expect(policy.evaluate(call({ tool: "delete" })).relaxable).toBe(false);
    expect(policy.evaluate(call({ tool: "other" })).relaxable).toBe(true);
  });
});

describe("tools and the hot path", () => {
  const policy = compilePolicy(
    parsePolicy({ rules: [{ id: "gh", effect: "allow", tools: ["github.*", "gitlab.read"] }] }),
  );

  it("matches tool lists by glob", () => {
    expect(policy.evaluate(call({ tool: "github.issues" })).rule_id).toBe("gh");
    expect(policy.evaluate(call({ tool: "gitlab.read" })).rule_id).toBe("gh");
    expect(policy.evaluate(call({ tool: "gitlab.write" })).rule_id).toBeNull();
  });

  it("returns shared frozen decisions", () => {
    const a = policy.evaluate(call({ tool: "github.x" }));
    expect(policy.evaluate(call({ tool: "github.y" }))).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
  });

  it("keeps deciding correctly after its candidate cache is cleared", () => {
    for (let i = 0; i < 5000; i++) policy.evaluate(call({ tool: `t${i}`, action: `a${i}` }));
    expect(policy.evaluate(call({ tool: "github.z" })).rule_id).toBe("gh");
  });

  it("refuses an amount that is not an exact decimal", () => {
    expect(() => policy.evaluate(call({ amount: "1e3", currency: "USD" }))).toThrow(PolicyInputError);
  });
});

describe("determinism", () => {
  const doc = parsePolicy({
    rules: [
      {
        id: "a",
        effect: "allow",
        conditions: [{ field: "arguments", path: "$.env", op: "in", value: ["dev", "test"] }],
      },
      {
        id: "b",
        effect: "deny",
        conditions: [{ field: "arguments", path: "$.n", op: "gt", threshold: "5" }],
      },
      {
        id: "c",
        effect: "require_approval",
        conditions: [{ field: "amount", op: "gte", threshold: "10", currency: "EUR" }],
        approvers: { roles: ["admin"] },
      },
    ],
  });

  it("gives the same decision for the same input, from any compiled copy, in any order", () => {
    const input = fc.record({
      tool: fc.constantFrom("x", "y"),
      action: fc.constantFrom("do", "undo"),
      amount: fc.option(fc.integer({ min: -50, max: 50 }).map(String), { nil: null }),
      currency: fc.constantFrom("EUR", "USD"),
      arguments: fc.record(
        { env: fc.constantFrom("dev", "prod", 3), n: fc.integer({ min: 0, max: 10 }) },
        { requiredKeys: [] },
      ),
    });
    fc.assert(
      fc.property(fc.array(input, { minLength: 1, maxLength: 20 }), (inputs) => {
        const one = compilePolicy(doc);
        const two = compilePolicy(structuredClone(doc));
        const first = inputs.map((i) => one.evaluate(i));
        const reversed = [...inputs]
          .reverse()
          .map((i) => two.evaluate(i))
          .reverse();
        expect(reversed).toEqual(first);
        expect(inputs.map((i) => one.evaluate(i))).toEqual(first);
      }),
    );
  });
});

describe("conditions sharing an argument path", () => {
  const policy = compilePolicy(
    parsePolicy({
      default_effect: "deny",
      rules: [
        {
          id: "prod",
          effect: "deny",
          conditions: [{ field: "arguments", path: "$.env", op: "eq", value: "prod" }],
        },
        {
          id: "staging",
          effect: "require_approval",
          conditions: [{ field: "arguments", path: "$.env", op: "starts_with", value: "stag" }],
          approvers: { roles: ["admin"] },
        },
        {
          id: "dev",
          effect: "allow",
          conditions: [
            { field: "arguments", path: "$.env", op: "in", value: ["dev", "test"] },
            { field: "arguments", path: '$["env"]', op: "exists" },
          ],
        },
      ],
    }),
  );

  it("read the value once per evaluation and never carry it to the next", () => {
    const seq = ["prod", "dev", "staging", undefined, "test", "prod"].map(
      (env) => policy.evaluate(call({ arguments: env === undefined ? {} : { env } })).rule_id,
    );
    expect(seq).toEqual(["prod", "dev", "staging", null, "dev", "prod"]);
  });
});
