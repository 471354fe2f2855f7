/**
 * The provider's events, applied (docs/billing.md). Each verified event is applied once, in one
 * transaction with the record of its id: a replay of an id already applied is a no-op, and a
 * failure leaves no trace, so the provider's retry applies it. What moves an organization:
 * - `checkout.session.completed` (paid): onto the plan of the checkout it started, at once;
 * - `customer.subscription.created` / `.updated`: onto the subscription's plan (by its price)
 *   while it is active, trialing, past_due or scheduled_cancel;
 * - `customer.subscription.deleted` (or a subscription ending otherwise): back to the default
 *   (free) plan.
 * Events arrive in any order: one older than the last applied to the organization's subscription
 * changes nothing. Only the plan changes; no item is deleted or disabled (SPEC 8.6).
 */
import type Stripe from "stripe";
import { z } from "zod";
import { inTransaction, type Pool, type PoolClient } from "@countersign/core/store";
import { ServiceError } from "@countersign/protocol/errors";
import { planOfPrice, type BillingOptions } from "./config.js";
import {
  periodEndOf,
  pricesOf,
  putsOnPlan,
  stateOf,
  type StoredSubscriptionState,
} from "./subscription-state.js";
import {
  closeCheckout,
  lockBilling,
  organizationOfCustomer,
  recordEvent,
  saveSubscription,
  setPlan,
  subscriptionOf,
  type SubscriptionRow,
} from "./store.js";

/**
 * The parts of Stripe's objects read here, checked rather than cast: a verified event whose object
 * lacks them (an API version that moved a field) is refused before anything is recorded.
 */
const expandable = z.union([z.string(), z.object({ id: z.string() })]);
const sessionShape = z.object({
  id: z.string(),
  subscription: expandable.nullable(),
  payment_status: z.string(),
});
const subscriptionShape = z.object({
  id: z.string(),
  customer: expandable,
  status: z.string(),
  cancel_at_period_end: z.boolean(),
  cancel_at: z.number().nullable(),
  items: z.object({
    data: z.array(
      z.object({ price: z.object({ id: z.string() }), current_period_end: z.number().optional() }),
    ),
  }),
});
type SessionShape = z.infer<typeof sessionShape>;
type SubscriptionShape = z.infer<typeof subscriptionShape>;

function objectOf<T>(event: Stripe.Event, shape: z.ZodType<T>): T {
  const parsed = shape.safeParse(event.data.object);
  if (!parsed.success)
    throw new ServiceError(
      "INVALID_REQUEST",
      `the ${event.type} event does not carry the object its type names`,
    );
  return parsed.data;
}

/** Applies one verified event in one transaction; false when its id was applied before (nothing done). */
export async function applyStripeEvent(
  pool: Pool,
  billing: BillingOptions,
  event: Stripe.Event,
): Promise<boolean> {
  return inTransaction(pool, (tx) => applyEvent(tx, billing, event));
}

/** Applies one verified event in `tx`; false when its id was applied before (nothing done). */
export async function applyEvent(
  tx: PoolClient,
  billing: BillingOptions,
  event: Stripe.Event,
): Promise<boolean> {
  if (!(await recordEvent(tx, event.id, event.type))) return false;
  const at = new Date(event.created * 1000);
  switch (event.type) {
    case "checkout.session.completed":
      await checkoutCompleted(tx, objectOf(event, sessionShape), at);
      break;
    case "checkout.session.expired":
      await closeCheckout(tx, objectOf(event, sessionShape).id);
      break;
    case "customer.subscription.created":
    case "customer.subscription.updated":
    case "customer.subscription.deleted":
      await subscriptionChanged(
        tx,
        billing,
        objectOf(event, subscriptionShape),
        event.type.endsWith(".deleted"),
        at,
      );
      break;
    default:
      // Other events (invoices, payment methods) change nothing here; their ids are kept all the same.
      break;
  }
  return true;
}

const idOf = (v: string | { id: string } | null): string | undefined =>
  v === null ? undefined : typeof v === "string" ? v : v.id;

async function checkoutCompleted(tx: PoolClient, session: SessionShape, at: Date): Promise<void> {
  const checkout = await closeCheckout(tx, session.id);
  const subscriptionId = idOf(session.subscription);
  // A session not started here, or one not paid yet (asynchronous payment methods: its
  // subscription's own events move the organization when the payment clears).
  if (!checkout || !subscriptionId || session.payment_status === "unpaid") return;
  await lockBilling(tx, checkout.organization_id);
  const known = await subscriptionOf(tx, checkout.organization_id);
  // The subscription's own events say more (period, cancellation): they are never overwritten here.
  if (known?.subscription_id === subscriptionId) return;
  if (known && putsOnPlan(known.status) && known.event_created > at) return;
  await saveSubscription(tx, checkout.organization_id, {
    subscription_id: subscriptionId,
    plan: checkout.plan,
    status: "active",
    current_period_end: null,
    event_created: at,
  });
  await setPlan(tx, checkout.organization_id, checkout.plan);
}

async function subscriptionChanged(
  tx: PoolClient,
  billing: BillingOptions,
  sub: SubscriptionShape,
  deleted: boolean,
  at: Date,
): Promise<void> {
  const customer = idOf(sub.customer);
  const organizationId = customer ? await organizationOfCustomer(tx, customer) : undefined;
  if (!organizationId) return; // a customer this installation did not create
  await lockBilling(tx, organizationId);
  const status: StoredSubscriptionState = deleted ? "ended" : stateOf(sub);
  const known = await subscriptionOf(tx, organizationId);
  const plan = pricesOf(sub)
    .map((p) => planOfPrice(billing, p))
    .find((p) => p !== undefined);
  if (known?.subscription_id === sub.id) {
    if (known.event_created > at) return; // older than what was applied: arrived late
  } else if (known && putsOnPlan(known.status) && !putsOnPlan(status)) {
    return; // the end of an older subscription does not end the current one
  }
  // A price that is none of ours: nothing to put the organization on (an ending still applies).
  const recordedPlan = plan ?? (known?.subscription_id === sub.id ? known.plan : undefined);
  if (!recordedPlan) return;
  const row: SubscriptionRow = {
    subscription_id: sub.id,
    plan: recordedPlan,
    status,
    current_period_end: periodEndOf(sub),
    event_created: at,
  };
  await saveSubscription(tx, organizationId, row);
  if (putsOnPlan(status)) await setPlan(tx, organizationId, recordedPlan);
  else if (status === "ended") await setPlan(tx, organizationId, null);
}
