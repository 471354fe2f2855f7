/** Webhook endpoints and their delivery log (SPEC 2.10, 6) through the one client. */
import type { SubscribableEventType, WebhookDelivery, WebhookEndpoint } from "@countersign/protocol/wire";
import type { Page } from "./types.js";
import { api } from "./client.js";

const base = (orgId: string) => `/orgs/${orgId}/webhooks`;

export interface EndpointFields {
  url?: string;
  description?: string;
  enabled?: boolean;
  event_types?: SubscribableEventType[];
}

export const webhooksApi = {
  list: (orgId: string) => api.get<Page<WebhookEndpoint>>(`${base(orgId)}?limit=100`),
  get: (orgId: string, id: string) =>
    api.get<{ webhook: WebhookEndpoint }>(`${base(orgId)}/${id}`).then((r) => r.webhook),
  /** The answer carries the signing secret: the only time it leaves the service. */
  create: (orgId: string, body: EndpointFields & { url: string; event_types: SubscribableEventType[] }) =>
    api.post<{ webhook: WebhookEndpoint; secret: string }>(base(orgId), body),
  update: (orgId: string, id: string, body: EndpointFields) =>
    api.patch<{ webhook: WebhookEndpoint }>(`${base(orgId)}/${id}`, body).then((r) => r.webhook),
  /** A new secret, returned this once; the previous one still signs for 24 hours. */
  rotate: (orgId: string, id: string) =>
    api.patch<{ webhook: WebhookEndpoint; secret: string }>(`${base(orgId)}/${id}`, { rotate_secret: true }),
  remove: (orgId: string, id: string) => api.delete<void>(`${base(orgId)}/${id}`),
  deliveries: (orgId: string, id: string) =>
    api.get<Page<WebhookDelivery>>(`${base(orgId)}/${id}/deliveries?limit=100`),
  redeliver: (orgId: string, id: string, deliveryId: string) =>
    api
      .post<{ delivery: WebhookDelivery }>(`${base(orgId)}/${id}/deliveries/${deliveryId}/redeliver`)
      .then((r) => r.delivery),
  test: (orgId: string, id: string) =>
    api.post<{ delivery: WebhookDelivery }>(`${base(orgId)}/${id}/test`).then((r) => r.delivery),
};
