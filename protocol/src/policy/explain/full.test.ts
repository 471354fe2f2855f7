import { describe, expect, it } from "vitest";
import canonicalize from "canonicalize";
import { compilePolicy } from "../compile.js";
import { parsePolicy } from "../validate.js";
import { decide } from "./facts.js";
import { fullExplanation } from "./full.js";

const ctx = (digest: string) => ({ policy: { name: "p", version: 1, digest } });

describe("full explanation", () => {
  const policy = compilePolicy(
    parsePolicy({
      rules: [
        {
          id: "env",
          effect: "deny",
          description: "No production",
          guard: true,
          conditions: [{ field: "arguments", path: "$.env", op: "eq", value: "prod" }],
        },
        {
          id: "reads",
          effect: "allow",
          tools: ["db.*"],
          conditions: [{ field: "action", op: "starts_with", value: "db.read" }],
        },
      ],
    }),
  );

  it("shows every rule with what held, and the call without argument values", () => {
    const input = {
      tool: "db.main",
      action: "db.read",
      arguments: { env: "staging-SECRET" },
      agent: { id: "a1" },
      environment: "test" as const,
    };
    const { decision, facts } = decide(policy, input);
    const e = fullExplanation(policy, input, decision, facts, ctx(policy.digest));
    expect(e.minimal).toBe(false);
    if (e.minimal) return;
    expect(e.schema).toBe("service.cloud/explanation@1");
    expect(e.decided_by).toEqual({ kind: "rule", rule_id: "reads", description: null });
    expect(e.call).toEqual({
      agent: { id: "a1" },
      tool: "db.main",
      action: "db.read",
      amount: null,
      currency: null,
      environment: "test",
    });
    expect(e.rules).toEqual([
      {
        id: "env",
        effect: "deny",
        description: "No production",
        guard: true,
        tools_match: true,
        matched: false,
        decided: false,
        conditions: [{ field: "arguments", path: "$.env", op: "eq", value: "prod", held: false }],
      },
      {
        id: "reads",
        effect: "allow",
        description: null,
        guard: false,
        tools_match: true,
        matched: true,
        decided: true,
        conditions: [{ field: "action", op: "starts_with", value: "db.read", held: true }],
      },
    ]);
    expect(JSON.stringify(e)).not.toContain("SECRET");
  });

  it("is minimal when detail is off, with the same decision", () => {
    const input = { tool: "x", action: "y", arguments: { env: "prod" } };
    const { decision, facts } = decide(policy, input);
    const e = fullExplanation(policy, input, decision, facts, ctx(policy.digest), { detailed: false });
    expect(e).toMatchObject({
      minimal: true,
      reason: "detail_off",
      policy_effect: "deny",
      decided_by: { rule_id: "env" },
    });
    expect(e.message).toBe('Denied by policy rule "env": argument $.env eq "prod".');
  });

  it("is minimal when the full one would pass 16 KiB", () => {
    const rules = Array.from({ length: 120 }, (_, i) => ({
      id: `rule-${i}`,
      effect: "deny",
      tools: [`tool-${i}`],
      conditions: [{ field: "action", op: "eq", value: `some.long.action.name.${i}` }],
    }));
    const big = compilePolicy(parsePolicy({ default_effect: "allow", rules }));
    const input = { tool: "tool-3", action: "some.long.action.name.3" };
    const { decision, facts } = decide(big, input);
    const e = fullExplanation(big, input, decision, facts, ctx(big.digest));
    expect(e).toMatchObject({
      minimal: true,
      reason: "too_large",
      policy_effect: "deny",
      decided_by: { rule_id: "rule-3" },
    });
    expect(Buffer.byteLength(canonicalize(e)!)).toBeLessThan(16 * 1024);
    const small = compilePolicy(parsePolicy({ default_effect: "allow", rules: rules.slice(0, 5) }));
    const s = decide(small, input);
    expect(fullExplanation(small, input, s.decision, s.facts, ctx(small.digest)).minimal).toBe(false);
  });
});
