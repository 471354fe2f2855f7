import type { Resolve } from "@countersign/core/net";

/** What the webhook routes and the delivery worker need (docs/webhooks.md). */
export interface WebhookOptions {
  /** COUNTERSIGN_CREDENTIAL_KEY: encrypts endpoint signing secrets at rest. */
  credentialKey: Buffer;
  /** COUNTERSIGN_ALLOW_LOOPBACK_URLS: loopback receivers for local runs and tests. */
  allowLoopbackUrls: boolean;
  /** Extra CA certificates receivers' certificates may chain to (COUNTERSIGN_WEBHOOK_CA_FILE), besides the usual roots. */
  ca?: string[];
  /** Name resolution; tests inject one to make a name change its answer. */
  resolve?: Resolve;
  /** The clock of the routes (rotation windows); tests inject one. */
  now?: () => Date;
}

/** The webhook options of the api; without COUNTERSIGN_CREDENTIAL_KEY the routes cannot seal secrets. */
export function webhookOptionsOf(ctx: { webhooks?: WebhookOptions }): WebhookOptions {
  if (!ctx.webhooks) throw new Error("webhooks are not configured (COUNTERSIGN_CREDENTIAL_KEY)");
  return ctx.webhooks;
}

/** The routes' clock (rotation windows): the injected one, or the time. */
export const webhookClock = (ctx: { webhooks?: WebhookOptions }): Date => ctx.webhooks?.now?.() ?? new Date();
