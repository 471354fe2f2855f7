// Webhook endpoints and their deliveries (SPEC 2.10, 3.7, 4.4, 4.5, 6).
import type { CloudApiClient } from "./client.js";

export interface WebhookEndpoint {
  id: string;
  url: string;
  description: string;
  enabled: boolean;
  event_types: string[];
}

export interface WebhookEndpointInput {
  url: string;
  description: string;
  enabled: boolean;
  event_types: string[];
}

export interface WebhookDelivery {
  id: string;
  state: "pending" | "delivered" | "failed";
  delivered_at: string | null;
  failed_at: string | null;
}

export function webhooks(client: CloudApiClient) {
  const base = (org: string) => `/orgs/${encodeURIComponent(org)}/webhooks`;
  const one = (org: string, id: string) => `${base(org)}/${encodeURIComponent(id)}`;
  return {
    async get(org: string, id: string): Promise<WebhookEndpoint> {
      return (await client.get<{ webhook: WebhookEndpoint }>(one(org, id))).webhook;
    },
    /** Answers the signing secret: the only time it leaves the service. */
    create(org: string, input: WebhookEndpointInput): Promise<{ webhook: WebhookEndpoint; secret: string }> {
      return client.post(base(org), input);
    },
    update(
      org: string,
      id: string,
      update: Partial<WebhookEndpointInput>,
    ): Promise<{ webhook: WebhookEndpoint }> {
      return client.patch(one(org, id), update);
    },
    rotateSecret(org: string, id: string): Promise<{ webhook: WebhookEndpoint; secret: string }> {
      return client.patch(one(org, id), { rotate_secret: true });
    },
    async delete(org: string, id: string): Promise<void> {
      await client.delete(one(org, id));
    },
    async deliveries(
      org: string,
      id: string,
      state: WebhookDelivery["state"],
      limit = 100,
    ): Promise<WebhookDelivery[]> {
      return (
        await client.get<{ items: WebhookDelivery[] }>(
          `${one(org, id)}/deliveries?state=${state}&limit=${limit}`,
        )
      ).items;
    },
  };
}
