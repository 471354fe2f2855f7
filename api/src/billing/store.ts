/** Billing's SQL (migration 0035): customers, subscriptions, Checkout sessions, applied events, the plan in effect. */
import type { Queryable } from "@countersign/core/store";
import type { Plan } from "@countersign/core/plans";
import type { SellablePlan } from "./config.js";
import type { StoredSubscriptionState } from "./subscription-state.js";

/**
 * Serialises billing changes of one organization (two checkouts at once, a checkout and an
 * event) for the transaction, without locking the organization's row for anything else.
 */
export async function lockBilling(q: Queryable, organizationId: string): Promise<void> {
  await q.query("select pg_advisory_xact_lock(hashtextextended('billing:' || $1, 0))", [organizationId]);
}

export async function customerOf(q: Queryable, organizationId: string): Promise<string | undefined> {
  const r = await q.query<{ customer_id: string }>(
    "select customer_id from billing_customers where organization_id = $1",
    [organizationId],
  );
  return r.rows[0]?.customer_id;
}

export async function saveCustomer(q: Queryable, organizationId: string, customerId: string): Promise<void> {
  await q.query(
    "insert into billing_customers (organization_id, customer_id) values ($1, $2) on conflict (organization_id) do nothing",
    [organizationId, customerId],
  );
}

export async function organizationOfCustomer(q: Queryable, customerId: string): Promise<string | undefined> {
  const r = await q.query<{ organization_id: string }>(
    "select organization_id from billing_customers where customer_id = $1",
    [customerId],
  );
  return r.rows[0]?.organization_id;
}

export interface SubscriptionRow {
  subscription_id: string;
  plan: SellablePlan;
  status: StoredSubscriptionState;
  current_period_end: Date | null;
  event_created: Date;
}

export async function subscriptionOf(
  q: Queryable,
  organizationId: string,
): Promise<SubscriptionRow | undefined> {
  const r = await q.query<SubscriptionRow>(
    `select subscription_id, plan, status, current_period_end, event_created
       from billing_subscriptions where organization_id = $1`,
    [organizationId],
  );
  return r.rows[0];
}

/** Replaces the organization's subscription record (one per organization: the latest the provider reported). */
export async function saveSubscription(
  q: Queryable,
  organizationId: string,
  s: SubscriptionRow,
): Promise<void> {
  await q.query(
    `insert into billing_subscriptions
       (organization_id, subscription_id, plan, status, current_period_end, event_created)
     values ($1, $2, $3, $4, $5, $6)
     on conflict (organization_id) do update set
       subscription_id = excluded.subscription_id, plan = excluded.plan, status = excluded.status,
       current_period_end = excluded.current_period_end, event_created = excluded.event_created,
       updated_at = now()`,
    [organizationId, s.subscription_id, s.plan, s.status, s.current_period_end, s.event_created],
  );
}

/** Whether a Checkout session the organization started is still open (not completed, expired or past its time). */
export async function hasOpenCheckout(q: Queryable, organizationId: string): Promise<boolean> {
  const r = await q.query(
    `select 1 from billing_checkouts
      where organization_id = $1 and closed_at is null and expires_at > now() limit 1`,
    [organizationId],
  );
  return r.rowCount! > 0;
}

export async function saveCheckout(
  q: Queryable,
  c: { sessionId: string; organizationId: string; plan: SellablePlan; expiresAt: Date },
): Promise<void> {
  await q.query(
    `insert into billing_checkouts (session_id, organization_id, plan, expires_at) values ($1, $2, $3, $4)`,
    [c.sessionId, c.organizationId, c.plan, c.expiresAt],
  );
}

/** Closes a Checkout session we started; its organization and plan, or undefined for a session not ours. */
export async function closeCheckout(
  q: Queryable,
  sessionId: string,
): Promise<{ organization_id: string; plan: SellablePlan } | undefined> {
  const r = await q.query<{ organization_id: string; plan: SellablePlan }>(
    `update billing_checkouts set closed_at = coalesce(closed_at, now())
      where session_id = $1 returning organization_id, plan`,
    [sessionId],
  );
  return r.rows[0];
}

/** Records an event id; false when it was recorded before (a replay: apply nothing). */
export async function recordEvent(q: Queryable, eventId: string, type: string): Promise<boolean> {
  const r = await q.query(
    "insert into billing_events (event_id, type) values ($1, $2) on conflict (event_id) do nothing",
    [eventId, type],
  );
  return r.rowCount === 1;
}

/**
 * The plan in effect: the subscription's, or null (the installation's default plan, the free
 * one). Only the plan changes: no item is deleted or disabled; quotas refuse new creations only.
 */
export async function setPlan(q: Queryable, organizationId: string, plan: Plan | null): Promise<void> {
  await q.query("update organizations set plan = $2 where id = $1 and plan is distinct from $2", [
    organizationId,
    plan,
  ]);
}

export async function organizationName(q: Queryable, organizationId: string): Promise<string> {
  const r = await q.query<{ name: string }>("select name from organizations where id = $1", [organizationId]);
  return r.rows[0]!.name;
}
