// WebhookEndpoint: where events are delivered (SPEC 2.10, 6). The signing secret goes to a Secret.
import { subscribableEventTypes } from "@countersign/core/webhooks";
import { z } from "zod";
import { cloudId, objectName, statusBase, timestamp } from "./fields.js";

/** Annotation whose new value asks the operator to rotate the signing secret. */
export const rotateSigningSecretAnnotation = "countersign.dev/rotate-signing-secret";

export const webhookEndpointSpec = z.object({
  url: z
    .string()
    .max(2048)
    .regex(/^https:\/\/[^\s]+$/, "an https URL")
    .meta({ description: "HTTPS URL events are POSTed to." }),
  description: z.string().max(500).optional(),
  events: z
    .array(z.enum(subscribableEventTypes).meta({ description: "An event type of SPEC 6.1." }))
    .min(1)
    .max(64)
    .meta({ description: "Subscribed event types (SPEC 6.1).", "x-kubernetes-list-type": "set" }),
  enabled: z.boolean().default(true),
  secretName: objectName.meta({
    description: `Secret (same namespace) the operator writes the signing secret into, under key "signing-secret". Set annotation ${rotateSigningSecretAnnotation} to a new value to rotate it.`,
  }),
});

export const webhookEndpointStatus = z.object({
  ...statusBase,
  webhookId: cloudId.optional(),
  secretRotation: z.string().max(253).optional(),
  deliveries: z
    .object({
      pending: z.int().min(0),
      failed: z.int().min(0),
      lastDeliveredAt: timestamp.optional(),
      lastFailedAt: timestamp.optional(),
    })
    .optional()
    .meta({ description: "Delivery health summarised from the endpoint's deliveries." }),
});

export type WebhookEndpointSpec = z.infer<typeof webhookEndpointSpec>;
export type WebhookEndpointStatus = z.infer<typeof webhookEndpointStatus>;
