/** Stripe's subscription statuses in the spec's words (docs/billing.md). */
import { describe, expect, it } from "vitest";
import { putsOnPlan, stateOf } from "./subscription-state.js";

const sub = (status: string, cancel_at_period_end = false, cancel_at: number | null = null) =>
  stateOf({ status: status as "active", cancel_at_period_end, cancel_at });

describe("subscription states", () => {
  it("maps Stripe's statuses to active, trialing, past_due, scheduled_cancel, incomplete or ended", () => {
    expect(sub("active")).toBe("active");
    expect(sub("trialing")).toBe("trialing");
    expect(sub("past_due")).toBe("past_due");
    expect(sub("active", true)).toBe("scheduled_cancel");
    expect(sub("trialing", false, 1_900_000_000)).toBe("scheduled_cancel");
    expect(sub("incomplete")).toBe("incomplete");
    for (const ended of ["canceled", "unpaid", "incomplete_expired", "paused"])
      expect(sub(ended)).toBe("ended");
  });

  it("keeps the organization on the plan only in the spec's four states", () => {
    expect(
      ["active", "trialing", "past_due", "scheduled_cancel"].every((s) => putsOnPlan(s as "active")),
    ).toBe(true);
    expect(putsOnPlan("incomplete")).toBe(false);
    expect(putsOnPlan("ended")).toBe(false);
  });
});
