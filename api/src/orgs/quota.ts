import { ServiceError } from "@countersign/protocol/errors";
import { quotas, type Plan, type Quotas } from "@countersign/core/plans";

/**
 * Refuse a creation that would exceed the plan (SPEC 8.6): 402
 * PLAN_LIMIT_EXCEEDED. Existing items are never touched by a limit.
 */
export function checkQuota(plan: Plan, what: keyof Quotas, current: number): void {
  const limit = quotas[plan][what];
  if (limit !== null && current >= limit) {
    throw new ServiceError("PLAN_LIMIT_EXCEEDED", `the ${plan} plan allows ${limit} ${what}`, {
      limit: what,
      plan,
      quota: limit,
    });
  }
}
