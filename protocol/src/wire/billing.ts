import { z } from "zod";
import { planNames } from "./organizations.js";

const quota = z.number().int().nullable();
const plan = z.enum(planNames);

/**
 * The states of a subscription the spec names (SPEC 7.2, SUBSCRIPTION_ACTIVE): any of them means
 * the organization is on its subscription's plan. `scheduled_cancel`: it ends at `current_period_end`.
 */
export const subscriptionStates = ["active", "trialing", "past_due", "scheduled_cancel"] as const;
export type SubscriptionState = (typeof subscriptionStates)[number];

/** The organization's subscription, while it has one in a state above (docs/billing.md). */
export const subscriptionSchema = z.strictObject({
  status: z.enum(subscriptionStates),
  plan,
  /** When the period paid for ends (a `scheduled_cancel` ends then); null when the provider did not say. */
  current_period_end: z.string().nullable(),
});
export type Subscription = z.infer<typeof subscriptionSchema>;

/** GET .../billing: the plan in effect and its quotas (null: unlimited). */
export const billingSchema = z.strictObject({
  /** False when plans cannot be bought in this installation (no billing provider configured). */
  configured: z.boolean(),
  plan,
  /** The plans a checkout may ask for here (empty when not configured). */
  purchasable: z.array(plan),
  subscription: subscriptionSchema.nullable(),
  quotas: z.strictObject({
    protected_actions_per_month: quota,
    members: quota,
    api_keys: quota,
    webhook_endpoints: quota,
    agents: quota,
    mcp_servers: quota,
    tools: quota,
    policies: quota,
    retention_days: quota,
  }),
});
export type Billing = z.infer<typeof billingSchema>;

/** POST .../billing/checkout: the plan to buy (checked against the purchasable ones: PLAN_NOT_PURCHASABLE). */
export const checkoutRequestSchema = z.strictObject({ plan: z.string().min(1).max(64) });
export type CheckoutRequest = z.infer<typeof checkoutRequestSchema>;

/** The provider's page to send the owner to: a Checkout session, or the customer portal. */
export const billingRedirectSchema = z.strictObject({
  url: z.url(),
  /** Until when the page can be used (Checkout sessions expire); null for the portal. */
  expires_at: z.string().nullable(),
});
export type BillingRedirect = z.infer<typeof billingRedirectSchema>;

/** The answer to the provider's push: received (and applied, or already applied before: `duplicate`). */
export const billingEventAnswerSchema = z.strictObject({
  received: z.literal(true),
  duplicate: z.boolean(),
});
