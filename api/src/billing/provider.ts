/**
 * The billing provider: Stripe through its official SDK, and nothing else of Stripe's outside
 * this module. Every failure of a call becomes 502 BILLING_PROVIDER_ERROR with `details.reason`
 * (`timeout`, `unreachable`, `refused`, `rate_limited`); Stripe's own message is not passed on
 * (it may name ids of the account), only logged by the caller without secrets.
 */
import Stripe from "stripe";
import { ServiceError } from "@countersign/protocol/errors";
import type { BillingOptions } from "./config.js";

export type ProviderFailure = "timeout" | "unreachable" | "refused" | "rate_limited";

export class BillingProvider {
  private readonly stripe: Stripe;
  private readonly webhookSecret: string;
  private readonly toleranceSeconds: number;

  constructor(opts: BillingOptions) {
    const url = opts.apiUrl ? new URL(opts.apiUrl) : undefined;
    this.stripe = new Stripe(opts.secretKey, {
      timeout: opts.timeoutMs ?? 10_000,
      // One retry of a network failure (the SDK sends an idempotency key, so it is safe).
      maxNetworkRetries: 1,
      appInfo: { name: "Countersign" },
      ...(url
        ? {
            host: url.hostname,
            port: url.port || (url.protocol === "https:" ? "443" : "80"),
            protocol: url.protocol === "https:" ? "https" : "http",
          }
        : {}),
    });
    this.webhookSecret = opts.webhookSecret;
    this.toleranceSeconds = opts.signatureToleranceSeconds ?? 300;
  }

  /** A customer for the organization (its id in metadata, so the provider's dashboard names it). */
  async createCustomer(organizationId: string, name: string): Promise<string> {
    const c = await call(() =>
      this.stripe.customers.create(
        { name, metadata: { organization_id: organizationId } },
        // A retry of the same organization's first checkout creates one customer, not two.
        { idempotencyKey: `customer-${organizationId}` },
      ),
    );
    return c.id;
  }

  /** A Checkout session subscribing `customer` to one price; expires after `expiresAt`. */
  async createCheckoutSession(input: {
    customer: string;
    price: string;
    organizationId: string;
    plan: string;
    successUrl: string;
    cancelUrl: string;
    expiresAt: Date;
  }): Promise<{ id: string; url: string; expiresAt: Date }> {
    const metadata = { organization_id: input.organizationId, plan: input.plan };
    const s = await call(() =>
      this.stripe.checkout.sessions.create({
        mode: "subscription",
        customer: input.customer,
        line_items: [{ price: input.price, quantity: 1 }],
        client_reference_id: input.organizationId,
        metadata,
        subscription_data: { metadata },
        success_url: input.successUrl,
        cancel_url: input.cancelUrl,
        expires_at: Math.floor(input.expiresAt.getTime() / 1000),
      }),
    );
    if (!s.url) throw providerError("refused", "the billing provider returned no checkout page");
    // Stripe closes the session at exactly the expires_at asked for.
    return { id: s.id, url: s.url, expiresAt: input.expiresAt };
  }

  /** A customer portal session: the customer changes or cancels the subscription there. */
  async createPortalSession(customer: string, returnUrl: string): Promise<string> {
    const p = await call(() =>
      this.stripe.billingPortal.sessions.create({ customer, return_url: returnUrl }),
    );
    // Serialized as a URL (RFC 3986: characters such as braces percent-encoded), as the answer's
    // `url` promises; a URL already in that form, as Stripe's are, is unchanged.
    if (!URL.canParse(p.url)) throw providerError("refused", "the billing provider answered no portal URL");
    return new URL(p.url).href;
  }

  /**
   * The pushed event, if its `Stripe-Signature` verifies over the exact bytes received with the
   * webhook secret and its timestamp is within the tolerance; undefined otherwise (forged,
   * altered or replayed late).
   */
  verifyEvent(rawBody: Buffer, signature: string | undefined): Stripe.Event | undefined {
    if (!signature) return undefined;
    try {
      return this.stripe.webhooks.constructEvent(
        rawBody,
        signature,
        this.webhookSecret,
        this.toleranceSeconds,
      );
    } catch {
      return undefined;
    }
  }
}

function providerError(reason: ProviderFailure, message: string): ServiceError {
  return new ServiceError("BILLING_PROVIDER_ERROR", message, { reason });
}

/** One provider call, its failure as BILLING_PROVIDER_ERROR. */
async function call<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    throw failureOf(err);
  }
}

export function failureOf(err: unknown): ServiceError {
  if (err instanceof Stripe.errors.StripeConnectionError) {
    const timeout = /timeout/i.test(err.message);
    return providerError(
      timeout ? "timeout" : "unreachable",
      timeout ? "the billing provider did not answer in time" : "the billing provider cannot be reached",
    );
  }
  if (err instanceof Stripe.errors.StripeRateLimitError)
    return providerError("rate_limited", "the billing provider is limiting requests; retry later");
  if (err instanceof Stripe.errors.StripeError)
    return providerError("refused", "the billing provider refused the request");
  throw err;
}
