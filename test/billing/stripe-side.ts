/**
 * Stripe's side of the billing tests: the official SDK pointed at stripe-mock for the fixtures of
 * the objects Stripe sends, and events pushed to the Cloud API's route signed with the SDK's own
 * `generateTestHeaderString`, exactly as Stripe signs them (docs/billing.md: stripe-mock sends no
 * events, so the tests build them from its fixtures).
 */
import { randomBytes } from "node:crypto";
import Stripe from "stripe";
import { Browser, randomIp, type Answer } from "../fixtures/cloud-api.js";

export const WEBHOOK_SECRET = "whsec_countersigntestsecret";
export const SECRET_KEY = "sk_test_countersign";
export const EVENTS_PATH = "/billing/stripe/events";
export const prices = { startup: "price_countersign_startup", growth: "price_countersign_growth" };

export const now = () => Math.floor(Date.now() / 1000);

export interface Signing {
  secret?: string;
  timestamp?: number;
  alter?: (payload: string) => string;
  /** The Stripe-Signature header as it is ("" sends none). */
  header?: string;
}

export class StripeSide {
  readonly stripe: Stripe;
  private seq = 0;

  constructor(
    stripeMockUrl: string,
    /** The Cloud API's origin (its routes under /api/v1). */
    private readonly apiBase: string,
  ) {
    const u = new URL(stripeMockUrl);
    this.stripe = new Stripe(SECRET_KEY, { host: u.hostname, port: u.port, protocol: "http" });
  }

  /** Pushes `event` to the route as Stripe does: the exact bytes, signed (or as `sign` says). */
  push(event: object, sign: Signing = {}): Promise<Answer> {
    const payload = JSON.stringify(event);
    const header =
      sign.header ??
      this.stripe.webhooks.generateTestHeaderString({
        payload,
        secret: sign.secret ?? WEBHOOK_SECRET,
        ...(sign.timestamp ? { timestamp: sign.timestamp } : {}),
      });
    const sent = sign.alter ? sign.alter(payload) : payload;
    return new Browser(this.apiBase, randomIp(), null).request("POST", EVENTS_PATH, Buffer.from(sent), {
      "content-type": "application/json; charset=utf-8",
      ...(header ? { "stripe-signature": header } : {}),
    });
  }

  /** An event of `type` about `object`, created at `created` (a fraction later for each, so order is kept). */
  event(type: string, object: object, created = now()) {
    return {
      id: `evt_test_${randomBytes(8).toString("hex")}`,
      object: "event",
      api_version: "2025-10-29.clover",
      created: created + this.seq++ / 1000,
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
      data: { object },
    };
  }

  /** A subscription as Stripe sends it: stripe-mock's fixture, made this customer's, with this price. */
  async subscription(
    id: string,
    customer: string,
    price: string,
    change: { status?: string; cancel_at_period_end?: boolean; periodEnd?: number } = {},
  ) {
    const s = (await this.stripe.subscriptions.retrieve(id)) as unknown as Record<string, unknown> & {
      items: { data: Record<string, unknown>[] };
    };
    const item: Record<string, unknown> = {
      ...s.items.data[0]!,
      price: { ...(s.items.data[0]!.price as object), id: price },
    };
    if (change.periodEnd) item.current_period_end = change.periodEnd;
    return {
      ...s,
      id,
      customer,
      status: change.status ?? "active",
      cancel_at_period_end: change.cancel_at_period_end ?? false,
      cancel_at: null,
      items: { ...s.items, data: [item] },
    };
  }

  /** A completed, paid Checkout session as Stripe sends it (stripe-mock's fixture with these ids). */
  async checkoutSession(id: string, customer: string, subscriptionId: string) {
    const s = (await this.stripe.checkout.sessions.retrieve(id)) as unknown as Record<string, unknown>;
    return { ...s, id, customer, subscription: subscriptionId, status: "complete", payment_status: "paid" };
  }
}
