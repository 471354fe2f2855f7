// WebhookEndpoint: where events are delivered (SPEC 2.10, 6). The signing secret goes to a Secret.
import { subscribableEventTypes } from "@countersign/protocol/wire";
import { z } from "zod";
import { cloudIdOf, objectName, statusBase, timestamp } from "./fields.js";

/** Annotation whose new value asks the operator to rotate the signing secret. */
export const rotateSigningSecretAnnotation = "countersign.dev/rotate-signing-secret";

export const webhookEndpointSpec = z.object({
  url: z
    .string()
    .max(2048)
    .regex(/^https:\/\/[^\s]+$/, "an https URL")
    .meta({ description: "HTTPS URL events are POSTed to." }),
  description: z.string().max(500).optional().meta({ description: "Free text shown in the dashboard." }),
  events: z
    .array(z.enum(subscribableEventTypes).meta({ description: "An event type of SPEC 6.1." }))
    .min(1)
    .max(64)
    .meta({ description: "Subscribed event types (SPEC 6.1).", "x-kubernetes-list-type": "set" }),
  enabled: z.boolean().default(true).meta({ description: "A disabled endpoint receives nothing." }),
  secretName: objectName.meta({
    description: `Secret (same namespace) the operator writes the signing secret into, under key "signing-secret". Set annotation ${rotateSigningSecretAnnotation} to a new value to rotate it.`,
  }),
});

export const webhookEndpointStatus = z.object({
  ...statusBase,
  webhookId: cloudIdOf("the webhook endpoint").optional(),
  secretRotation: z
    .string()
    .max(253)
    .optional()
    .meta({ description: "Value of the rotation annotation last acted on." }),
  deliveries: z
    .object({
      pending: z.int().min(0).meta({ description: "Deliveries waiting to be sent or retried." }),
      failed: z.int().min(0).meta({ description: "Deliveries that failed for good." }),
      lastDeliveredAt: timestamp.optional().meta({ description: "When a delivery last succeeded." }),
      lastFailedAt: timestamp.optional().meta({ description: "When a delivery last failed." }),
    })
    .optional()
    .meta({ description: "Delivery health summarised from the endpoint's deliveries." }),
});

export type WebhookEndpointSpec = z.infer<typeof webhookEndpointSpec>;
export type WebhookEndpointStatus = z.infer<typeof webhookEndpointStatus>;
