/** Webhook endpoints and their delivery log (SPEC 2.10, 6). */
import type { z } from "zod";
import {
  noContentSchema,
  webhookDeliveryAnswerSchema,
  webhookDeliveryListSchema,
  webhookEndpointAnswerSchema,
  webhookEndpointListSchema,
  webhookEndpointPatchedSchema,
  webhookEndpointWithSecretSchema,
  webhookEndpointPatchSchema,
  type WebhookEndpointInput,
} from "@countersign/protocol/wire";
import { cloud } from "./cloud.js";
import { inOrg, seg } from "./paths.js";

const base = (orgId: string) => inOrg(orgId, "/webhooks");
const one = (orgId: string, id: string) => `${base(orgId)}/${seg(id)}`;

export const webhookKeys = {
  all: (orgId: string) => ["webhooks", orgId] as const,
  one: (webhookId: string) => ["webhook", webhookId] as const,
};

export const webhooksApi = {
  list: (orgId: string) =>
    cloud.request("GET", base(orgId), webhookEndpointListSchema, { query: { limit: 100 } }),
  get: (orgId: string, id: string) =>
    cloud.request("GET", one(orgId, id), webhookEndpointAnswerSchema).then((r) => r.webhook),
  /** The answer carries the signing secret: the only time it leaves the service. */
  create: (orgId: string, body: WebhookEndpointInput) =>
    cloud.request("POST", base(orgId), webhookEndpointWithSecretSchema, { body }),
  update: (orgId: string, id: string, body: z.input<typeof webhookEndpointPatchSchema>) =>
    cloud.request("PATCH", one(orgId, id), webhookEndpointPatchedSchema, { body }).then((r) => r.webhook),
  /** A new secret, returned this once; the previous one still signs for 24 hours. */
  rotate: (orgId: string, id: string) =>
    cloud.request("PATCH", one(orgId, id), webhookEndpointWithSecretSchema, {
      body: { rotate_secret: true },
    }),
  remove: (orgId: string, id: string) => cloud.request("DELETE", one(orgId, id), noContentSchema),
  deliveries: (orgId: string, id: string) =>
    cloud.request("GET", `${one(orgId, id)}/deliveries`, webhookDeliveryListSchema, {
      query: { limit: 100 },
    }),
  redeliver: (orgId: string, id: string, deliveryId: string) =>
    cloud
      .request(
        "POST",
        `${one(orgId, id)}/deliveries/${seg(deliveryId)}/redeliver`,
        webhookDeliveryAnswerSchema,
        {
          body: {},
        },
      )
      .then((r) => r.delivery),
  test: (orgId: string, id: string) =>
    cloud
      .request("POST", `${one(orgId, id)}/test`, webhookDeliveryAnswerSchema, { body: {} })
      .then((r) => r.delivery),
};
