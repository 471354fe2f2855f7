import { describe, expect, it } from "vitest";
import { parsePolicy } from "../validate.js";
import { diffPolicies } from "./diff.js";

const v1 = parsePolicy({
  rules: [
    { id: "a", effect: "allow", tools: ["x"] },
    { id: "b", effect: "deny", tools: ["y"] },
    { id: "c", effect: "allow", tools: ["z"] },
    { id: "gone", effect: "deny" },
  ],
});

describe("diff of two versions", () => {
  it("is empty for the same document, even reformatted", () => {
    const d = diffPolicies(v1, JSON.parse(JSON.stringify(v1)));
    expect(d).toMatchObject({
      identical: true,
      added: [],
      removed: [],
      changed: [],
      moved: [],
      default_changed: [],
      revision: null,
    });
  });

  it("names added, removed, changed and moved rules, the default and the revision", () => {
    const v2 = parsePolicy({
      default_effect: "require_approval",
      rules: [
        { id: "c", effect: "allow", tools: ["z"] },
        { id: "a", effect: "allow", tools: ["x", "w"] },
        {
          id: "b",
          effect: "require_approval",
          tools: ["y"],
          approvers: { roles: ["admin"] },
          description: "now held",
        },
        { id: "new", effect: "deny" },
      ],
    });
    const d = diffPolicies(v1, v2);
    expect(d.identical).toBe(false);
    expect(d.revision).toEqual({ from: 1, to: 2 });
    expect(d.default_changed).toEqual(["default_effect"]);
    expect(d.added).toEqual([{ rule_id: "new", index: 3, effect: "deny" }]);
    expect(d.removed).toEqual([{ rule_id: "gone", index: 3, effect: "deny" }]);
    expect(d.changed).toEqual([
      { rule_id: "a", from_index: 0, to_index: 1, fields: ["tools"] },
      { rule_id: "b", from_index: 1, to_index: 2, fields: ["effect", "approvers", "description"] },
    ]);
    expect(d.moved).toEqual([{ rule_id: "c", from_index: 2, to_index: 0 }]);
  });
});
