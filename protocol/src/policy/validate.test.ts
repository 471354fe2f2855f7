import { describe, expect, it } from "vitest";
import { ServiceError } from "../errors/index.js";
import { parsePolicy, policyInvalidError, validatePolicy } from "./validate.js";

const ok = {
  default_effect: "deny",
  rules: [
    {
      id: "read",
      effect: "allow",
      tools: ["github.*"],
      conditions: [{ field: "action", op: "matches", pattern: "repo.read*" }],
    },
    {
      id: "big-spend",
      effect: "require_approval",
      conditions: [{ field: "amount", op: "gt", threshold: "100.00", currency: "USD" }],
      approvers: { roles: ["owner", "admin"], count: 2 },
      approval_ttl_seconds: 3600,
    },
  ],
};

function issuesOf(doc: unknown) {
  const r = validatePolicy(doc);
  if (r.ok) throw new Error("expected issues");
  return r.issues;
}

describe("validatePolicy", () => {
  it("accepts a valid document with its digest and revision", () => {
    const r = validatePolicy(ok);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.revision).toBe(1);
    expect(r.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(r.document.rules).toHaveLength(2);
  });

  it("infers revision 2 from description or guard, and refuses them in a declared revision 1", () => {
    const rev2 = { rules: [{ id: "d", effect: "deny", description: "no deletes", guard: true }] };
    const r = validatePolicy(rev2);
    expect(r.ok && r.revision).toBe(2);
    expect(issuesOf({ ...rev2, revision: 1 }).map((i) => [i.path, i.code])).toEqual([
      ["rules.0.description", "revision_required"],
      ["rules.0.guard", "revision_required"],
    ]);
    const declared = validatePolicy({ revision: 2, rules: [] });
    expect(declared.ok && declared.revision).toBe(2);
  });

  it("reports unknown members by path", () => {
    expect(
      issuesOf({ rules: [{ id: "a", effect: "allow", when: {} }], extra: 1 }).map((i) => [i.path, i.code]),
    ).toEqual([
      ["rules.0.when", "unknown_member"],
      ["extra", "unknown_member"],
    ]);
  });

  it("reports every problem at once, each with a path and code", () => {
    const issues = issuesOf({
      default_effect: "maybe",
      rules: [
        { id: "a", effect: "require_approval" },
        { id: "a", effect: "allow", approvers: { roles: ["owner"] }, approval_ttl_seconds: 600 },
        {
          id: "-bad",
          effect: "deny",
          conditions: [{ field: "arguments", path: "env", op: "eq", value: "prod" }],
        },
        {
          id: "c",
          effect: "deny",
          conditions: [{ field: "amount", op: "gt", threshold: "1e5", currency: "USD" }],
          bogus: true,
        },
      ],
    });
    const got = issues.map((i) => `${i.path} ${i.code}`);
    expect(got).toEqual(
      expect.arrayContaining([
        "default_effect invalid_value",
        "rules.0.approvers approvers_required",
        "rules.1.id duplicate_rule_id",
        "rules.1.approvers approvers_not_allowed",
        "rules.1.approval_ttl_seconds approvers_not_allowed",
        "rules.2.id invalid_rule_id",
        "rules.2.conditions.0.path invalid_path",
        "rules.3.bogus unknown_member",
        "rules.3.conditions.0.threshold invalid_decimal",
      ]),
    );
    for (const i of issues) expect(i.message.length).toBeGreaterThan(0);
  });

  it("checks approvers and approval lifetimes", () => {
    const ra = (extra: object) => ({
      rules: [{ id: "r", effect: "require_approval", approvers: { roles: ["owner"] }, ...extra }],
    });
    expect(issuesOf(ra({ approvers: { roles: ["owner", "owner"] } }))[0]!.code).toBe("duplicate_role");
    expect(issuesOf(ra({ approvers: { roles: ["owner"], count: 33 } }))[0]!.code).toBe(
      "approver_count_out_of_range",
    );
    expect(issuesOf(ra({ approvers: { roles: ["viewer"] } }))[0]!.path).toBe("rules.0.approvers.roles.0");
    expect(issuesOf(ra({ approval_ttl_seconds: 59 }))[0]!.code).toBe("approval_ttl_out_of_range");
    expect(issuesOf(ra({ approval_ttl_seconds: 2_592_001 }))[0]!.code).toBe("approval_ttl_out_of_range");
    expect(validatePolicy(ra({ approval_ttl_seconds: 60 })).ok).toBe(true);
    expect(
      issuesOf({ default_effect: "deny", default_approvers: { roles: ["owner"] }, rules: [] })[0]!.code,
    ).toBe("approvers_not_allowed");
    expect(
      validatePolicy({
        default_effect: "require_approval",
        default_approvers: { roles: ["admin"] },
        default_approval_ttl_seconds: 120,
        rules: [],
      }).ok,
    ).toBe(true);
  });

  it("checks descriptions and patterns", () => {
    expect(issuesOf({ rules: [{ id: "r", effect: "deny", description: "two\nlines" }] })[0]!.code).toBe(
      "invalid_description",
    );
    expect(issuesOf({ rules: [{ id: "r", effect: "deny", description: "x".repeat(501) }] })[0]!.code).toBe(
      "invalid_description",
    );
    expect(issuesOf({ rules: [{ id: "r", effect: "deny", tools: [] }] })[0]!.path).toBe("rules.0.tools");
  });

  it("never echoes the submitted value", () => {
    const secret = "sk_live_THIS_MUST_NOT_APPEAR";
    const issues = issuesOf({
      rules: [
        {
          id: secret,
          effect: secret,
          conditions: [{ field: "amount", op: "gt", threshold: secret, currency: "USD" }],
        },
      ],
    });
    expect(JSON.stringify(issues)).not.toContain(secret);
  });

  it("refuses with POLICY_INVALID and details.issues", () => {
    expect(() => parsePolicy({ rules: "no" })).toThrow(ServiceError);
    const e = policyInvalidError([{ path: "rules", code: "invalid_type", message: "expected array" }]);
    expect(e.code).toBe("POLICY_INVALID");
    expect(e.status).toBe(422);
    expect(e.toBody().error.details?.issues).toHaveLength(1);
    expect(parsePolicy(ok).rules[0]!.id).toBe("read");
  });

  it("refuses input that is not an object", () => {
    for (const bad of [null, [], "x", 1]) expect(validatePolicy(bad).ok).toBe(false);
  });
});
