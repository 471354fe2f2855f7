/**
 * Billing's configuration (docs/billing.md, docs/configuration.md). Unset is the default: plans
 * cannot be bought here, GET .../billing says `configured: false`, checkout and portal answer 503.
 * Billing is on when the Stripe secret key, the webhook signing secret and at least one plan's
 * price are all set; some without the others is a configuration error, never a half-working
 * billing. The two secrets are never logged or returned.
 */
import { ConfigError, httpUrl, setting } from "@countersign/core/config";
import { z } from "zod";
import type { Plan } from "@countersign/core/plans";

/** Plans that can be bought: every plan but the free one. */
export const sellablePlans = ["startup", "growth", "scale", "enterprise"] as const;
export type SellablePlan = (typeof sellablePlans)[number];

const priceId = z.string().regex(/^price_[A-Za-z0-9_]{1,200}$/);
const priceMap = z.partialRecord(z.enum(sellablePlans), priceId);

/** `startup=price_…,growth=price_…` in the environment; a mapping in the configuration file. */
const prices = z
  .union([
    z
      .string()
      .transform((v) =>
        Object.fromEntries(
          v
            .split(",")
            .map((pair) => pair.trim())
            .filter(Boolean)
            .map((pair) => pair.split("=").map((s) => s.trim())),
        ),
      )
      .pipe(priceMap),
    priceMap,
  ])
  .optional();

export const billingSettings = {
  /** Stripe's secret (or restricted) API key; unset: billing is off. */
  stripeSecretKey: setting(
    "COUNTERSIGN_STRIPE_SECRET_KEY",
    z
      .string()
      .regex(/^(sk|rk)_(test|live)_[A-Za-z0-9_]{1,300}$/)
      .optional(),
    "a Stripe secret key (sk_live_…, sk_test_… or a restricted rk_…)",
  ),
  /** The signing secret of the webhook endpoint Stripe pushes events to. */
  stripeWebhookSecret: setting(
    "COUNTERSIGN_STRIPE_WEBHOOK_SECRET",
    z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/=_]{1,300}$/)
      .optional(),
    "a Stripe webhook signing secret (whsec_…)",
  ),
  /** Which plans can be bought and the Stripe price of each. */
  stripePrices: setting(
    "COUNTERSIGN_STRIPE_PRICES",
    prices,
    "plan=price_id pairs separated by commas, plans among startup, growth, scale, enterprise",
  ),
  /** Another address for Stripe's API (stripe-mock in tests, an egress proxy); unset: api.stripe.com. */
  stripeApiUrl: setting("COUNTERSIGN_STRIPE_API_URL", httpUrl.optional(), "an http(s) URL"),
};

/** Billing as the api runs it: present only when configured. */
export interface BillingOptions {
  secretKey: string;
  webhookSecret: string;
  /** Price id of each purchasable plan. */
  prices: Partial<Record<SellablePlan, string>>;
  /** Stripe's API elsewhere than api.stripe.com. */
  apiUrl?: string | undefined;
  /** How long a provider call may take before BILLING_PROVIDER_ERROR `timeout` (default 10 s). */
  timeoutMs?: number;
  /** Tolerance of the signature's timestamp, in seconds (default 300, the SDK's). */
  signatureToleranceSeconds?: number;
}

export interface BillingSettings {
  stripeSecretKey?: string | undefined;
  stripeWebhookSecret?: string | undefined;
  stripePrices?: Partial<Record<SellablePlan, string>> | undefined;
  stripeApiUrl?: string | undefined;
}

/** Billing's options from settings: undefined when none is set; an Error naming the missing ones when only some are. */
export function billingOptionsFrom(s: BillingSettings): BillingOptions | undefined {
  const prices = s.stripePrices ?? {};
  const present = {
    COUNTERSIGN_STRIPE_SECRET_KEY: s.stripeSecretKey !== undefined,
    COUNTERSIGN_STRIPE_WEBHOOK_SECRET: s.stripeWebhookSecret !== undefined,
    COUNTERSIGN_STRIPE_PRICES: Object.keys(prices).length > 0,
  };
  const missing = Object.entries(present)
    .filter(([, set]) => !set)
    .map(([name]) => name);
  if (missing.length === 3) return undefined;
  if (missing.length)
    throw new ConfigError(
      missing.map((setting) => ({
        setting,
        source: "environment" as const,
        problem: "required when any billing setting is set (billing is all or nothing)",
      })),
    );
  return {
    secretKey: s.stripeSecretKey!,
    webhookSecret: s.stripeWebhookSecret!,
    prices,
    apiUrl: s.stripeApiUrl,
  };
}

/** The purchasable plans, in the spec's order. */
export function purchasablePlans(b: BillingOptions | undefined): SellablePlan[] {
  return b ? sellablePlans.filter((p) => b.prices[p] !== undefined) : [];
}

/** The plan a Stripe price id stands for, if it is one of ours. */
export function planOfPrice(b: BillingOptions, price: string | undefined): SellablePlan | undefined {
  return sellablePlans.find((p) => price !== undefined && b.prices[p] === price);
}

export const isSellable = (p: Plan): p is SellablePlan => (sellablePlans as readonly string[]).includes(p);
