import { describe, expect, it } from "vitest";
import { compilePolicy } from "../compile.js";
import { parsePolicy } from "../validate.js";
import { decisionMap } from "./decision-map.js";

const policy = compilePolicy(
  parsePolicy({
    default_effect: "deny",
    rules: [
      { id: "reads", effect: "allow", tools: ["crm.*"] },
      {
        id: "small",
        effect: "allow",
        tools: ["pay"],
        conditions: [{ field: "amount", op: "lte", threshold: "100", currency: "USD" }],
      },
      {
        id: "big",
        effect: "require_approval",
        tools: ["pay"],
        conditions: [{ field: "amount", op: "gt", threshold: "100", currency: "USD" }],
        approvers: { roles: ["admin"] },
      },
      {
        id: "eur",
        effect: "allow",
        tools: ["pay"],
        conditions: [{ field: "amount", op: "lt", threshold: "10", currency: "EUR" }],
      },
      {
        id: "prod",
        effect: "deny",
        tools: ["crm.*"],
        conditions: [{ field: "arguments", path: "$.env", op: "eq", value: "prod" }],
      },
    ],
  }),
);

describe("decision map", () => {
  it("lists possible outcomes when arguments could change them", () => {
    const m = decisionMap(policy, [{ tool: "crm.contacts", action: "crm.read" }]);
    expect(m.tools[0]!.entries).toEqual([
      {
        amount: null,
        decision: null,
        possible: [
          { effect: "deny", rule_id: "prod" },
          { effect: "allow", rule_id: "reads" },
        ],
      },
    ]);
  });

  it("splits a tool's amounts at the policy's thresholds and merges equal neighbours", () => {
    const m = decisionMap(policy, [{ tool: "pay", action: "pay.send", amount: { currency: "USD" } }]);
    expect(m.tools[0]!.entries).toEqual([
      {
        amount: { currency: "USD", lte: "100" },
        decision: { effect: "allow", rule_id: "small" },
        possible: [{ effect: "allow", rule_id: "small" }],
      },
      {
        amount: { currency: "USD", gt: "100" },
        decision: { effect: "require_approval", rule_id: "big" },
        possible: [{ effect: "require_approval", rule_id: "big" }],
      },
    ]);
  });

  it("maps every named currency and any other when the currency comes from the arguments", () => {
    const m = decisionMap(policy, [{ tool: "pay", action: "pay.send", amount: { currency: null } }]);
    expect(m.tools[0]!.entries.map((e) => [e.amount, e.decision?.rule_id ?? null])).toEqual([
      [{ currency: "EUR", lt: "10" }, "eur"],
      [{ currency: "EUR", gte: "10" }, null],
      [{ currency: "USD", lte: "100" }, "small"],
      [{ currency: "USD", gt: "100" }, "big"],
      [{ currency: null }, null],
    ]);
  });

  it("gives the default for tools no rule covers", () => {
    expect(decisionMap(policy, [{ tool: "fs", action: "fs.rm", amount: null }]).tools[0]!.entries).toEqual([
      {
        amount: null,
        decision: { effect: "deny", rule_id: null },
        possible: [{ effect: "deny", rule_id: null }],
      },
    ]);
  });
});
