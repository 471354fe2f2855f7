import type { Plan } from "@countersign/core/plans";
import type { Pool } from "@countersign/core/store";
import type { Mailer } from "./mail/mailer.js";
import type { TokenReviewer } from "./operators/token-review.js";
import type { RouteAccess } from "./access/types.js";
import type { WebhookOptions } from "./webhooks/options.js";
import type { RolloutOptions } from "./policies/options.js";
import type { BillingOptions } from "./billing/config.js";

/** Everything the people-and-access routes need beyond the request. */
export interface CloudApiOptions {
  /** HMAC key of API key secrets (COUNTERSIGN_KEY_HASH_SECRET); also derives csrf tokens. */
  keyHashSecret: Buffer;
  /** Origin of the dashboard (SPEC 5.5) and of the links in e-mails. */
  dashboardOrigin: string;
  defaultPlan: Plan;
  /** COUNTERSIGN_DETAILED_EXPLANATIONS (SPEC 2.9): false gives dry runs the minimal explanation, as the Gateway records. */
  detailedExplanations?: boolean;
  mailer: Mailer;
  /** Reverse proxies in front of the api that append to X-Forwarded-For. */
  trustedProxyHops: number;
  /** Validates operator ServiceAccount tokens; absent: bearer tokens other than keys are refused. */
  tokenReviewer?: TokenReviewer;
  /** The access table (default: the real one, api/src/access/route-table.ts). */
  accessTable?: readonly RouteAccess[];
  /**
   * Tests of the access table only: a request with `x-access-probe: 1` that
   * passes access is answered 204 before its handler runs.
   */
  accessProbe?: boolean;
  /** Policies and rollout: injected clocks and the impact preview's budget. */
  rollout?: RolloutOptions;
  /** Webhook endpoints and their delivery worker (docs/webhooks.md); required to create endpoints. */
  webhooks?: WebhookOptions;
  /** Billing through Stripe (docs/billing.md); absent: plans cannot be bought here (the default). */
  billing?: BillingOptions;
}

export interface ApiContext extends CloudApiOptions {
  pool: Pool;
}
