import { checkPublicUrl } from "@countersign/core/net";
import { ServiceError } from "@countersign/protocol/errors";
import type { WebhookOptions } from "./options.js";

/** On create and change: 422 URL_NOT_ALLOWED with `details.reason` (docs/webhooks.md lists the reasons). */
export async function requirePublicUrl(url: string, w: WebhookOptions): Promise<void> {
  const check = await checkPublicUrl(url, { allowLoopback: w.allowLoopbackUrls, resolve: w.resolve });
  if (!check.allowed) {
    // The refused address itself is not told: it would show callers what internal names resolve to.
    throw new ServiceError(
      "URL_NOT_ALLOWED",
      `the webhook URL is not allowed: ${check.reason.replace(/_/g, " ")}`,
      { reason: check.reason },
    );
  }
}
