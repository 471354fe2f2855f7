import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../compile.js";
import { parsePolicy, validatePolicy } from "../validate.js";
import { requireApprovalDraft } from "./require-approval-draft.js";

const target = parsePolicy({
  default_effect: "deny",
  rules: [
    { id: "reads", effect: "allow", conditions: [{ field: "action", op: "matches", pattern: "*.read" }] },
    { id: "no-delete", effect: "deny", conditions: [{ field: "action", op: "ends_with", value: ".delete" }] },
    {
      id: "spend",
      effect: "require_approval",
      conditions: [{ field: "amount", op: "gt", threshold: "100", currency: "USD" }],
      approvers: { roles: ["approver"] },
    },
    {
      id: "no-prod",
      effect: "deny",
      conditions: [{ field: "arguments", path: "$.env", op: "eq", value: "prod" }],
    },
  ],
});

describe("require-approval draft (SPEC 3.5)", () => {
  const draft = requireApprovalDraft(target);

  it("turns deny rules into guarded require_approval rules for owner and admin, placed first", () => {
    expect(draft.rules.map((r) => [r.id, r.effect])).toEqual([
      ["no-delete", "require_approval"],
      ["no-prod", "require_approval"],
      ["reads", "allow"],
      ["spend", "require_approval"],
    ]);
    expect(draft.rules[0]).toEqual({
      id: "no-delete",
      effect: "require_approval",
      conditions: target.rules[1]!.conditions,
      approvers: { roles: ["owner", "admin"] },
      guard: true,
    });
    expect(draft.rules[3]).toEqual(target.rules[2]);
  });

  it("makes the default require_approval and the document revision 2", () => {
    expect(draft.default_effect).toBe("require_approval");
    expect(draft.revision).toBe(2);
    expect(validatePolicy(draft).ok).toBe(true);
  });

  it("keeps the revision when the target has no deny rule", () => {
    const d = requireApprovalDraft(
      parsePolicy({ default_effect: "allow", rules: [{ id: "a", effect: "allow" }] }),
    );
    expect(d.revision).toBeUndefined();
    expect(d.default_effect).toBe("require_approval");
    expect(validatePolicy(d).ok && validatePolicy(d).ok).toBe(true);
  });

  it("keeps approvers of a require_approval default", () => {
    const d = requireApprovalDraft(
      parsePolicy({
        default_effect: "require_approval",
        default_approvers: { roles: ["approver"] },
        rules: [],
      }),
    );
    expect(d.default_approvers).toEqual({ roles: ["approver"] });
  });

  it("decides every call with the target's rule, holding what it would deny", () => {
    const t = compilePolicy(target);
    const d = compilePolicy(draft);
    const input = fc.record({
      tool: fc.constant("t"),
      action: fc.constantFrom("a.read", "a.delete", "a.write"),
      amount: fc.constantFrom("50", "150"),
      currency: fc.constantFrom("USD", "EUR"),
      arguments: fc.record({ env: fc.constantFrom("prod", "dev") }),
    });
    fc.assert(
      fc.property(input, (i) => {
        const a = t.evaluate(i);
        const b = d.evaluate(i);
        expect(b.rule_id).toBe(a.rule_id);
        expect(b.effect).toBe(a.effect === "deny" || a.rule_id === null ? "require_approval" : a.effect);
        if (a.effect === "deny" && a.rule_id)
          expect(b).toMatchObject({
            guard: true,
            relaxable: false,
            approvers: { roles: ["owner", "admin"], count: 1 },
          });
      }),
    );
  });
});
