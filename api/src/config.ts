import {
  caCertificates,
  commonSettings,
  ed25519Seed,
  httpUrl,
  key32,
  port,
  setting,
} from "@countersign/core/config";
import { z } from "zod";
import { billingSettings } from "./billing/config.js";

/** Settings of the Cloud API server (docs/configuration.md lists them all). */
export const apiSettings = {
  ...commonSettings,
  /** Billing through Stripe (docs/billing.md): all unset by default. */
  ...billingSettings,
  port: setting("COUNTERSIGN_API_PORT", port(8080), "a port number 0-65535"),
  /** The api stores webhook signing secrets with it, so it cannot run without one. */
  credentialKey: setting("COUNTERSIGN_CREDENTIAL_KEY", key32, "32 bytes as base64 or base64url"),
  /** The Gateway identity's seed: the api signs closure receipts (rejections, cancellations) with it; unset, those routes answer 503. */
  gatewaySigningKey: setting(
    "COUNTERSIGN_GATEWAY_SIGNING_KEY",
    ed25519Seed.optional(),
    "an Ed25519 seed: 32 bytes as base64url",
  ),
  /** PEM file of extra CA certificates webhook receivers may chain to (private CAs, tests). */
  webhookCaFile: setting(
    "COUNTERSIGN_WEBHOOK_CA_FILE",
    caCertificates.optional(),
    "a readable file of PEM CA certificates",
  ),
  /** The plan of organizations without a subscription (DESIGN "Plans in a self-hosted installation"). */
  defaultPlan: setting(
    "COUNTERSIGN_DEFAULT_PLAN",
    z.enum(["developer", "startup", "growth", "scale", "enterprise"]).default("developer"),
    "one of developer, startup, growth, scale, enterprise",
  ),
  /** The dashboard's origin: the only Origin unsafe session requests may carry (SPEC 5.5); e-mail links point here. */
  dashboardOrigin: setting(
    "COUNTERSIGN_DASHBOARD_ORIGIN",
    httpUrl.transform((v) => new URL(v).origin).default("http://127.0.0.1:8080"),
    "an http(s) origin",
  ),
  /** SMTP server for account e-mail (smtp:// or smtps://); unset: messages go to the outbox folder. */
  smtpUrl: setting(
    "COUNTERSIGN_SMTP_URL",
    z
      .string()
      .refine((v) => /^smtps?:\/\//.test(v) && URL.canParse(v), "not an smtp(s) URL")
      .optional(),
    "an smtp:// or smtps:// URL",
  ),
  /**
   * The Gateway's public base URL, which agents call (POST {gateway_url}/v1/authorize, {gateway_url}/mcp):
   * the dashboard shows it with the snippets that connect an agent (docs/dashboard.md "Connect an
   * agent"); unset, the dashboard says to ask whoever runs the installation instead of guessing.
   */
  gatewayUrl: setting(
    "COUNTERSIGN_GATEWAY_URL",
    httpUrl.transform((v) => v.replace(/\/+$/, "")).optional(),
    "an http(s) URL",
  ),
  /** The dashboard's static build (dashboard/dist); unset: the api serves no pages, only /api/v1. */
  dashboardDir: setting("COUNTERSIGN_DASHBOARD_DIR", z.string().min(1).optional(), "a folder"),
  mailFrom: setting(
    "COUNTERSIGN_MAIL_FROM",
    z.string().min(3).default("Countersign <no-reply@countersign.invalid>"),
    "a From address",
  ),
  /** Where messages are written when no SMTP server is configured. */
  mailOutboxDir: setting(
    "COUNTERSIGN_MAIL_OUTBOX_DIR",
    z.string().min(1).default(".data/outbox"),
    "a folder",
  ),
  /** How many reverse proxies in front of the api append to X-Forwarded-For (0: use the socket address). */
  trustedProxyHops: setting(
    "COUNTERSIGN_TRUSTED_PROXY_HOPS",
    z.coerce.number().int().min(0).max(10).default(0),
    "whole number 0-10",
  ),
  /** Kubernetes API server whose TokenReview API validates operator ServiceAccount tokens; unset: no operator sign-in. */
  tokenReviewUrl: setting(
    "COUNTERSIGN_TOKENREVIEW_URL",
    httpUrl.optional(),
    "an http(s) URL of a Kubernetes API server",
  ),
  /** Bearer token the api presents to the TokenReview API (a ServiceAccount allowed to create tokenreviews). */
  tokenReviewToken: setting("COUNTERSIGN_TOKENREVIEW_TOKEN", z.string().min(1).optional(), "a bearer token"),
  /** Audience the operator's projected token must carry (checked by the TokenReview). */
  tokenReviewAudience: setting(
    "COUNTERSIGN_TOKENREVIEW_AUDIENCE",
    z.string().min(1).default("countersign"),
    "an audience",
  ),
};
