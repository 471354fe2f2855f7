import type { WebhookEndpoint } from "@countersign/protocol/wire";
import type { EndpointRow } from "./endpoint-store.js";

/** The endpoint record: the secret is only ever in the create and rotate answers. */
export function endpointJson(e: EndpointRow, now: Date): WebhookEndpoint {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    enabled: e.enabled,
    event_types: e.event_types,
    created_by: e.created_by,
    disabled_reason: e.disabled_reason,
    // Until then deliveries carry two signatures.
    previous_secret_expires_at:
      e.previous_secret_until && e.previous_secret_until > now ? e.previous_secret_until.toISOString() : null,
    created_at: e.created_at.toISOString(),
    updated_at: e.updated_at.toISOString(),
  };
}
