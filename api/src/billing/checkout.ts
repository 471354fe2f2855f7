/**
 * POST .../billing/checkout (SPEC 4.4, 7.2): a Stripe Checkout session for a purchasable plan.
 * Refused with PLAN_NOT_PURCHASABLE when the plan is not sold here, SUBSCRIPTION_ACTIVE when the
 * organization already has a subscription (plan changes and cancelling go through the portal),
 * CHECKOUT_IN_PROGRESS while a session it started is still open. Nothing changes the plan here:
 * only the provider's verified event does (events.ts).
 */
import { inTransaction, type Pool } from "@countersign/core/store";
import { ServiceError } from "@countersign/protocol/errors";
import type { BillingRedirect } from "@countersign/protocol/wire";
import { purchasablePlans, type BillingOptions, type SellablePlan } from "./config.js";
import type { BillingProvider } from "./provider.js";
import { putsOnPlan } from "./subscription-state.js";
import {
  customerOf,
  hasOpenCheckout,
  lockBilling,
  organizationName,
  saveCheckout,
  saveCustomer,
  subscriptionOf,
} from "./store.js";

/** How long a Checkout session stays open: Stripe's shortest, so an abandoned one blocks the next for little time. */
export const CHECKOUT_MINUTES = 30;

export async function startCheckout(input: {
  pool: Pool;
  billing: BillingOptions;
  provider: BillingProvider;
  organizationId: string;
  plan: string;
  /** The dashboard's billing page: where Stripe sends the owner back. */
  returnUrl: string;
}): Promise<BillingRedirect> {
  const purchasable = purchasablePlans(input.billing);
  const plan = purchasable.find((p) => p === input.plan);
  if (!plan)
    throw new ServiceError(
      "PLAN_NOT_PURCHASABLE",
      `plan ${JSON.stringify(input.plan)} cannot be bought here`,
      {
        purchasable,
      },
    );
  return inTransaction(input.pool, async (tx) => {
    await lockBilling(tx, input.organizationId);
    const subscription = await subscriptionOf(tx, input.organizationId);
    if (subscription && putsOnPlan(subscription.status))
      throw new ServiceError(
        "SUBSCRIPTION_ACTIVE",
        `the organization has a subscription (${subscription.status}); change or cancel it in the billing portal`,
      );
    if (await hasOpenCheckout(tx, input.organizationId))
      throw new ServiceError(
        "CHECKOUT_IN_PROGRESS",
        `a checkout started for this organization is still open (it expires within ${CHECKOUT_MINUTES} minutes)`,
      );
    const customer = await customerFor(input, tx);
    const session = await input.provider.createCheckoutSession({
      customer,
      price: input.billing.prices[plan as SellablePlan]!,
      organizationId: input.organizationId,
      plan,
      successUrl: `${input.returnUrl}?checkout=complete`,
      cancelUrl: `${input.returnUrl}?checkout=cancelled`,
      expiresAt: new Date(Date.now() + CHECKOUT_MINUTES * 60_000),
    });
    await saveCheckout(tx, {
      sessionId: session.id,
      organizationId: input.organizationId,
      plan,
      expiresAt: session.expiresAt,
    });
    return { url: session.url, expires_at: session.expiresAt.toISOString() };
  });
}

/**
 * The organization's customer at the provider, created on its first checkout. Saved outside the
 * checkout's transaction (the lock still serialises it): a checkout that fails afterwards keeps
 * the customer, so the provider never holds two for one organization.
 */
async function customerFor(
  input: { pool: Pool; provider: BillingProvider; organizationId: string },
  tx: Parameters<typeof customerOf>[0],
): Promise<string> {
  const known = await customerOf(tx, input.organizationId);
  if (known) return known;
  const created = await input.provider.createCustomer(
    input.organizationId,
    await organizationName(tx, input.organizationId),
  );
  await saveCustomer(input.pool, input.organizationId, created);
  return created;
}
