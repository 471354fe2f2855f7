// Webhook endpoints and their deliveries.
import { noContent } from "@countersign/client/cloud";
import {
  webhookDeliveryListSchema,
  webhookEndpointAnswerSchema,
  webhookEndpointListSchema,
  webhookEndpointPatchedSchema,
  webhookEndpointWithSecretSchema,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookEndpointInput as WireEndpointInput,
} from "@countersign/protocol/wire";
import type { CloudApiClient } from "./client.js";
import { allPages } from "./pages.js";

/** What the operator sends: every member given (the wire's defaults are not relied on). */
export type WebhookEndpointInput = Required<WireEndpointInput>;
export type { WebhookDelivery, WebhookEndpoint };

export function webhooks(client: CloudApiClient) {
  const base = (org: string) => `/orgs/${encodeURIComponent(org)}/webhooks`;
  const one = (org: string, id: string) => `${base(org)}/${encodeURIComponent(id)}`;
  return {
    async get(org: string, id: string): Promise<WebhookEndpoint> {
      return (await client.get(one(org, id), webhookEndpointAnswerSchema)).webhook;
    },
    /**
     * Answers the signing secret: the only time it leaves the service. `createdFor` (the
     * resource's metadata.uid) lets a later pass find an endpoint whose answer was lost.
     */
    create(
      org: string,
      input: WebhookEndpointInput,
      createdFor: string,
    ): Promise<{ webhook: WebhookEndpoint; secret: string }> {
      return client.post(
        `${base(org)}?created_for=${encodeURIComponent(createdFor)}`,
        webhookEndpointWithSecretSchema,
        input,
      );
    },
    /** The endpoints created for this resource, oldest first (one, or more only after a lost answer). */
    createdFor(org: string, createdFor: string): Promise<WebhookEndpoint[]> {
      return allPages(
        client,
        `${base(org)}?created_for=${encodeURIComponent(createdFor)}`,
        webhookEndpointListSchema,
      );
    },
    update(
      org: string,
      id: string,
      update: Partial<WebhookEndpointInput>,
    ): Promise<{ webhook: WebhookEndpoint }> {
      return client.patch(one(org, id), webhookEndpointPatchedSchema, update);
    },
    rotateSecret(org: string, id: string): Promise<{ webhook: WebhookEndpoint; secret: string }> {
      return client.patch(one(org, id), webhookEndpointWithSecretSchema, { rotate_secret: true });
    },
    async delete(org: string, id: string): Promise<void> {
      await client.delete(one(org, id), noContent);
    },
    async deliveries(
      org: string,
      id: string,
      state: WebhookDelivery["state"],
      limit = 100,
    ): Promise<WebhookDelivery[]> {
      return (
        await client.get(
          `${one(org, id)}/deliveries?state=${state}&limit=${limit}`,
          webhookDeliveryListSchema,
        )
      ).items;
    },
  };
}
