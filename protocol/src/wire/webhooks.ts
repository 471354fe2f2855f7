import { z } from "zod";

/**
 * Event types an endpoint can subscribe to (the complete list is ours, docs/webhooks.md).
 * `webhook.test` is not among them: a test event goes to the one endpoint it was sent to,
 * whatever it subscribes to.
 */
export const subscribableEventTypes = [
  "action.authorized",
  "action.allowed",
  "action.denied",
  "approval.requested",
  "action.observe_override",
  "receipt.created",
  "policy.activated",
] as const;
export type SubscribableEventType = (typeof subscribableEventTypes)[number];
export const TEST_EVENT_TYPE = "webhook.test";

/** A webhook endpoint: `{webhook}` of GET, POST, PATCH (with `secret` only on create and rotate). */
export const webhookEndpointSchema = z.strictObject({
  id: z.uuid(),
  url: z.string(),
  description: z.string(),
  enabled: z.boolean(),
  event_types: z.array(z.string()),
  created_by: z.uuid().nullable(),
  /** Why the service disabled it itself (its creator can no longer manage webhooks), if it did. */
  disabled_reason: z.string().nullable(),
  /** Until then deliveries carry two signatures, the new secret's and the previous one's. */
  previous_secret_expires_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;

export const deliveryStates = ["pending", "delivered", "failed"] as const;

/** One attempt of a delivery, as its log keeps it: time, HTTP status or error, duration. */
export const deliveryAttemptSchema = z.strictObject({
  number: z.number().int(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  duration_ms: z.number().nullable(),
  status_code: z.number().int().nullable(),
  error: z.string().nullable(),
});
export type DeliveryAttempt = z.infer<typeof deliveryAttemptSchema>;

/** A delivery of one event to one endpoint, with every attempt: items of GET .../deliveries, `{delivery}` of redeliver and test. */
export const webhookDeliverySchema = z.strictObject({
  id: z.uuid(),
  event_id: z.uuid(),
  event_type: z.string(),
  event_created_at: z.string(),
  state: z.enum(deliveryStates),
  next_attempt_at: z.string().nullable(),
  created_at: z.string(),
  delivered_at: z.string().nullable(),
  failed_at: z.string().nullable(),
  attempts: z.array(deliveryAttemptSchema),
});
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;
