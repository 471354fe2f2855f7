import { bench, describe } from "vitest";
import { compilePolicy, decide, parsePolicy, type PolicyInput } from "@countersign/protocol/policy";

/**
 * Evaluations per second on the Gateway's hot path (`make bench`). vitest
 * prints ops/s (hz) per case; nothing is asserted. Documents mix every kind
 * of condition so the figure is not a best case.
 */
function documentOf(n: number) {
  return parsePolicy({
    default_effect: "deny",
    rules: Array.from({ length: n }, (_, i) => {
      switch (i % 5) {
        case 0:
          return {
            id: `r${i}`,
            effect: "allow",
            tools: [`svc${i}.*`],
            conditions: [{ field: "action", op: "matches", pattern: `svc${i}.read*` }],
          };
        case 1:
          return {
            id: `r${i}`,
            effect: "require_approval",
            tools: [`svc${i - 1}.*`],
            conditions: [{ field: "amount", op: "gt", threshold: "100.00", currency: "USD" }],
            approvers: { roles: ["admin"] },
          };
        case 2:
          return {
            id: `r${i}`,
            effect: "deny",
            conditions: [
              { field: "action", op: "ends_with", value: [".delete", ".drop"] },
              { field: "arguments", path: "$.env", op: "eq", value: `prod${i}` },
            ],
          };
        case 3:
          return {
            id: `r${i}`,
            effect: "allow",
            tools: [`svc${i}.*`],
            conditions: [
              { field: "arguments", path: "$.target.account", op: "starts_with", value: ["acme-", "test-"] },
              { field: "amount", op: "lte", threshold: "50", currency: "USD" },
            ],
          };
        default:
          return {
            id: `r${i}`,
            effect: "deny",
            conditions: [{ field: "arguments", path: "$.items[0].qty", op: "gt", threshold: "1000" }],
          };
      }
    }),
  });
}

// Calls spread over tools so both cache hits and rule scans are measured.
const inputs: PolicyInput[] = Array.from({ length: 64 }, (_, i) => ({
  tool: `svc${(i * 5) % 50}.api`,
  action: i % 3 === 0 ? `svc${(i * 5) % 50}.read_item` : `svc${(i * 5) % 50}.update`,
  amount: i % 2 === 0 ? `${i * 7}.25` : null,
  currency: "USD",
  arguments: { env: "staging", target: { account: "acme-1" }, items: [{ qty: i }] },
}));

for (const n of [10, 500]) {
  const policy = compilePolicy(documentOf(n));
  let k = 0;
  describe(`${n}-rule document`, () => {
    bench(`evaluate (${n} rules)`, () => {
      policy.evaluate(inputs[k++ & 63]!);
    });
    bench(`evaluate with explanation facts (${n} rules)`, () => {
      decide(policy, inputs[k++ & 63]!);
    });
  });
}
