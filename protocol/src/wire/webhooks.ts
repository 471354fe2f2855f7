import { z } from "zod";
import { pageSchema } from "./pages.js";

/**
 * Event types an endpoint can subscribe to (the complete list is ours,
 * docs/webhooks.md). `webhook.test` is not among them: a test event goes to
 * the one endpoint it was sent to, whatever it subscribes to.
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

/** The endpoint record: the secret is only ever in the create and rotate answers. */
export const webhookEndpointSchema = z.strictObject({
  id: z.uuid(),
  url: z.string(),
  description: z.string(),
  enabled: z.boolean(),
  event_types: z.array(z.string()),
  created_by: z.uuid().nullable(),
  disabled_reason: z.string().nullable(),
  /** Until then deliveries carry two signatures. */
  previous_secret_expires_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;
export const webhookEndpointListSchema = pageSchema(webhookEndpointSchema);
export const webhookEndpointAnswerSchema = z.strictObject({ webhook: webhookEndpointSchema });
/** The answer of a create or a secret rotation: the only time the signing secret leaves the service. */
export const webhookEndpointWithSecretSchema = z.strictObject({
  webhook: webhookEndpointSchema,
  secret: z.string(),
});
/** PATCH answers `secret` only when it rotated the secret. */
export const webhookEndpointPatchedSchema = webhookEndpointAnswerSchema.extend({
  secret: z.string().optional(),
});

// Length and form are URL rules (422 URL_NOT_ALLOWED), not body validation.
const url = z.string().min(1).max(65536);
const description = z.string().max(500);
const eventTypes = z
  .array(z.enum(subscribableEventTypes))
  .min(1)
  .refine((t) => new Set(t).size === t.length, "no duplicates");

/** POST .../webhooks. */
export const webhookEndpointCreateSchema = z.strictObject({
  url,
  description: description.default(""),
  enabled: z.boolean().default(true),
  event_types: eventTypes,
});
export type WebhookEndpointInput = z.input<typeof webhookEndpointCreateSchema>;
/** PATCH .../webhooks/<id>: any of the members, or `rotate_secret`. */
export const webhookEndpointPatchSchema = z
  .strictObject({
    url: url.optional(),
    description: description.optional(),
    enabled: z.boolean().optional(),
    event_types: eventTypes.optional(),
    rotate_secret: z.boolean().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, "nothing to change");

export const deliveryStates = ["pending", "delivered", "failed"] as const;

/** A delivery with its log: every attempt with time, status or error, and duration. */
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
  attempts: z.array(
    z.strictObject({
      number: z.number().int(),
      started_at: z.string().nullable(),
      finished_at: z.string().nullable(),
      duration_ms: z.number().int().nullable(),
      status_code: z.number().int().nullable(),
      error: z.string().nullable(),
    }),
  ),
});
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;
export const webhookDeliveryListSchema = pageSchema(webhookDeliverySchema);
export const webhookDeliveryAnswerSchema = z.strictObject({ delivery: webhookDeliverySchema });
