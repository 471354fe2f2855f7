/**
 * A Stripe subscription in the spec's words (docs/billing.md): which of `active`, `trialing`,
 * `past_due`, `scheduled_cancel` it is in (each keeps the organization on the subscription's
 * plan), or `incomplete` (the first payment is not made yet: not on the plan yet), or `ended`
 * (canceled, unpaid, paused, expired: back to the installation's default plan, the free one).
 */
import type { SubscriptionState } from "@countersign/protocol/wire";

/** What is read of a Stripe subscription (events.ts checks these fields with zod). */
interface StripeSubscription {
  status: string;
  cancel_at_period_end: boolean;
  cancel_at: number | null;
  items: { data: { price: { id: string }; current_period_end?: number | undefined }[] };
}

export type StoredSubscriptionState = SubscriptionState | "incomplete" | "ended";

export function stateOf(
  s: Pick<StripeSubscription, "status" | "cancel_at_period_end" | "cancel_at">,
): StoredSubscriptionState {
  switch (s.status) {
    case "active":
    case "trialing":
      // Cancelled in the portal "at period end" (or at a set date): still paid for until then.
      if (s.cancel_at_period_end || s.cancel_at) return "scheduled_cancel";
      return s.status === "active" ? "active" : "trialing";
    case "past_due":
      return "past_due";
    case "incomplete":
      return "incomplete";
    default:
      return "ended";
  }
}

export const putsOnPlan = (s: StoredSubscriptionState): s is SubscriptionState =>
  s !== "incomplete" && s !== "ended";

/** The end of the period paid for: the latest of the items' (where Stripe's API keeps it now). */
export function periodEndOf(s: StripeSubscription): Date | null {
  const ends = s.items.data.map((i) => i.current_period_end).filter((t) => typeof t === "number");
  return ends.length ? new Date(Math.max(...ends) * 1000) : null;
}

/** The price ids the subscription is for. */
export const pricesOf = (s: StripeSubscription): string[] => s.items.data.map((i) => i.price.id);
