import type { PolicyTemplate } from "./types.js";

/**
 * Allows payments up to a threshold, holds larger ones for an owner or admin,
 * and refuses anything above a hard cap. Amounts in other currencies and
 * calls without an amount fall to the default and are denied.
 */
export const spendLimitWithApproval: PolicyTemplate = {
  id: "spend-limit-with-approval",
  name: "Spend limit with approval above a threshold",
  description:
    "Allows amounts up to 100.00 USD, requires an owner's or admin's approval above that, denies more than 10000.00 USD.",
  document: {
    revision: 1,
    default_effect: "deny",
    rules: [
      {
        id: "hard-cap",
        effect: "deny",
        conditions: [{ field: "amount", op: "gt", threshold: "10000.00", currency: "USD" }],
      },
      {
        id: "above-threshold",
        effect: "require_approval",
        conditions: [{ field: "amount", op: "gt", threshold: "100.00", currency: "USD" }],
        approvers: { roles: ["owner", "admin"], count: 1 },
        approval_ttl_seconds: 3600,
      },
      {
        id: "within-limit",
        effect: "allow",
        conditions: [
          { field: "amount", op: "gte", threshold: "0", currency: "USD" },
          { field: "amount", op: "lte", threshold: "100.00", currency: "USD" },
        ],
      },
    ],
  },
};
