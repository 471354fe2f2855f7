import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../compile.js";
import { parsePolicy } from "../validate.js";
import { agentExplanation, whyText } from "./agent.js";
import { effectiveDisclosure } from "./disclosure.js";
import { decide } from "./facts.js";

const policy = compilePolicy(
  parsePolicy({
    default_effect: "deny",
    rules: [
      {
        id: "reads",
        effect: "allow",
        tools: ["crm.*"],
        conditions: [{ field: "action", op: "matches", pattern: "crm.read*" }],
      },
      {
        id: "big-payment",
        effect: "require_approval",
        tools: ["pay.secret-tool-list"],
        description: "Large payments need a person",
        conditions: [
          { field: "amount", op: "gt", threshold: "100", currency: "USD" },
          { field: "arguments", path: "$.to", op: "not_in", value: ["ACME-TRUSTED"] },
        ],
        approvers: { roles: ["owner", "admin"], count: 2 },
        approval_ttl_seconds: 900,
      },
      {
        id: "other-candidate",
        effect: "require_approval",
        tools: ["pay.*"],
        approvers: { roles: ["approver"] },
      },
      { id: "unrelated", effect: "deny", tools: ["db.*"] },
    ],
  }),
);
const ctx = { policy: { name: "payments", version: 3, digest: policy.digest } };
const payment = {
  tool: "pay.secret-tool-list",
  action: "payments.send",
  amount: "250",
  currency: "USD",
  arguments: { to: "ARGVALUE-X" },
  agent: { id: "agent-1", name: "bot" },
};

describe("agent explanation", () => {
  const { decision, facts } = decide(policy, payment);

  it("is nothing at level none", () => {
    expect(agentExplanation(policy, decision, facts, "none", ctx)).toBeNull();
  });

  it("at level rule names the rule, its description and approval, without condition values", () => {
    const e = agentExplanation(policy, decision, facts, "rule", ctx)!;
    expect(e).toEqual({
      schema: "service.cloud/agent-explanation@1",
      disclosure: "rule",
      policy: { name: "payments", version: 3, digest: policy.digest },
      enforcement: "enforce",
      decision: "approval_pending",
      policy_effect: "require_approval",
      decided_by: { kind: "rule", rule_id: "big-payment", description: "Large payments need a person" },
      approval: { roles: ["owner", "admin"], approver_count: 2, ttl_seconds: 900 },
      message:
        'Needs approval by policy rule "big-payment" (conditions on amount, arguments). Approval by 2 of: owner, admin.',
    });
    expect(whyText(e)).toMatch(/^Why: /);
  });

  it("at level conditions adds the conditions and the amount band, withholding argument operands", () => {
    const e = agentExplanation(policy, decision, facts, "conditions", ctx)!;
    expect(e.conditions).toEqual([
      { field: "amount", op: "gt", threshold: "100", currency: "USD" },
      { field: "arguments", op: "not_in", path: "$.to" },
    ]);
    expect(e.amount_band).toEqual({ currency: "USD", gt: "100" });
    expect(e.message).toBe(
      'Needs approval by policy rule "big-payment": amount gt 100 USD and argument $.to not_in. Approval by 2 of: owner, admin.',
    );
  });

  it("never names other candidate rules, rules that did not apply, tool lists, users or argument values", () => {
    const text = JSON.stringify(agentExplanation(policy, decision, facts, "conditions", ctx));
    for (const hidden of [
      "other-candidate",
      "unrelated",
      "reads",
      "secret-tool-list",
      "agent-1",
      "ARGVALUE",
      "ACME-TRUSTED",
    ])
      expect(text).not.toContain(hidden);
  });

  it("explains the default and a check", () => {
    const d = decide(policy, { tool: "fs.rm", action: "fs.rm" });
    const e = agentExplanation(policy, d.decision, d.facts, "conditions", {
      ...ctx,
      enforcement: "observe",
    })!;
    expect(e).toMatchObject({
      decided_by: { kind: "default", rule_id: null },
      conditions: [],
      enforcement: "observe",
      decision: "denied",
    });
    expect(e.message).toBe("Denied by the policy default: no rule applies to this call.");
    const c = agentExplanation(policy, decision, facts, "conditions", {
      ...ctx,
      check: "delegation",
      decision: "denied",
    })!;
    expect(c).toMatchObject({
      decided_by: { kind: "delegation", rule_id: null, description: null },
      conditions: [],
    });
    expect(c.approval).toBeUndefined();
    expect(c.amount_band).toBeUndefined();
  });

  it("falls back to the organization's approval lifetime", () => {
    const d = decide(policy, { tool: "pay.other", action: "x" });
    expect(
      agentExplanation(policy, d.decision, d.facts, "rule", {
        ...ctx,
        organization_approval_ttl_seconds: 86400,
      })!.approval,
    ).toEqual({ roles: ["approver"], approver_count: 1, ttl_seconds: 86400 });
  });

  it("property: never contains argument values, whatever the policy and call", () => {
    const token = fc.stringMatching(/^[a-z]{3,8}$/).map((s) => `ARG${s}`);
    fc.assert(
      fc.property(
        fc.array(token, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 0, max: 3 }),
        fc.constantFrom("rule", "conditions") as fc.Arbitrary<"rule" | "conditions">,
        (values, pick, level) => {
          const chosen = values[pick % values.length]!;
          const doc = parsePolicy({
            rules: [
              {
                id: "eq",
                effect: "deny",
                conditions: [{ field: "arguments", path: "$.a", op: "eq", value: chosen }],
              },
              {
                id: "in",
                effect: "require_approval",
                conditions: [{ field: "arguments", path: "$.b", op: "in", value: values }],
                approvers: { roles: ["admin"] },
              },
              {
                id: "pre",
                effect: "allow",
                conditions: [
                  { field: "arguments", path: "$.c", op: "starts_with", value: chosen.slice(0, 4) },
                ],
              },
            ],
          });
          const p = compilePolicy(doc);
          const args = { a: chosen, b: values[0], c: chosen, nested: { deep: values } };
          const d = decide(p, { tool: "t", action: "x", arguments: args, amount: "1", currency: "EUR" });
          const text = JSON.stringify(
            agentExplanation(p, d.decision, d.facts, level, {
              policy: { name: "n", version: 1, digest: p.digest },
            }),
          );
          expect(text).not.toContain("ARG");
        },
      ),
    );
  });
});

describe("disclosure", () => {
  it("is the lower of the organization ceiling and the policy setting", () => {
    expect(effectiveDisclosure("rule")).toBe("rule");
    expect(effectiveDisclosure("conditions", "inherit")).toBe("conditions");
    expect(effectiveDisclosure("rule", "conditions")).toBe("rule");
    expect(effectiveDisclosure("conditions", "none")).toBe("none");
    expect(effectiveDisclosure("none", "conditions")).toBe("none");
  });
});
