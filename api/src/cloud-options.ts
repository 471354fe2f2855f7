import path from "node:path";
import type { Plan } from "@countersign/core/plans";
import type { CloudApiOptions } from "./context.js";
import "./mcp/options.js";
import "./evidence/options.js";
import { outboxMailer } from "./mail/outbox.js";
import { smtpMailer } from "./mail/smtp.js";
import { tokenReviewer } from "./operators/token-review.js";
import { billingOptionsFrom, type BillingSettings } from "./billing/config.js";

export interface CloudSettings extends BillingSettings {
  keyHashSecret: Buffer;
  dashboardOrigin: string;
  defaultPlan: Plan;
  detailedExplanations?: boolean;
  smtpUrl?: string | undefined;
  mailFrom: string;
  mailOutboxDir: string;
  trustedProxyHops: number;
  tokenReviewUrl?: string | undefined;
  tokenReviewToken?: string | undefined;
  tokenReviewAudience: string;
  /** Webhooks (docs/webhooks.md): without a credential key no endpoint can be created and no worker runs. */
  credentialKey?: Buffer | undefined;
  allowLoopbackUrls?: boolean;
  /** COUNTERSIGN_WEBHOOK_CA_FILE's certificates (PEM), trusted for webhook receivers besides the public roots. */
  webhookCaFile?: string[] | undefined;
  /** COUNTERSIGN_UPSTREAM_CA_FILE's certificates (PEM), trusted for MCP servers besides the public roots. */
  upstreamCaFile?: string[] | undefined;
  /** COUNTERSIGN_GATEWAY_SIGNING_KEY: signs closure receipts (docs/evidence-api.md). */
  gatewaySigningKey?: Uint8Array | undefined;
}

/** The people-and-access options from settings; `announce` prints outbox links (no SMTP server). */
export function cloudOptionsFrom(s: CloudSettings, announce: (line: string) => void): CloudApiOptions {
  return {
    keyHashSecret: s.keyHashSecret,
    dashboardOrigin: s.dashboardOrigin,
    defaultPlan: s.defaultPlan,
    detailedExplanations: s.detailedExplanations,
    mailer: s.smtpUrl
      ? smtpMailer(s.smtpUrl, s.mailFrom)
      : outboxMailer(path.resolve(s.mailOutboxDir), s.mailFrom, announce),
    trustedProxyHops: s.trustedProxyHops,
    tokenReviewer: s.tokenReviewUrl
      ? tokenReviewer({
          url: s.tokenReviewUrl,
          reviewerToken: s.tokenReviewToken,
          audience: s.tokenReviewAudience,
        })
      : undefined,
    webhooks: s.credentialKey
      ? {
          credentialKey: s.credentialKey,
          allowLoopbackUrls: s.allowLoopbackUrls ?? false,
          ca: s.webhookCaFile,
        }
      : undefined,
    // MCP servers (docs/configuration-api.md): the same credential key encrypts their authorization headers.
    mcp: {
      credentialKey: s.credentialKey,
      allowLoopbackUrls: s.allowLoopbackUrls ?? false,
      ca: s.upstreamCaFile,
    },
    evidence: { gatewaySigningKey: s.gatewaySigningKey },
    billing: billingOptionsFrom(s),
  };
}
