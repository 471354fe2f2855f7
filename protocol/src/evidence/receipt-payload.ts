import { z } from "zod";
import { digestSchema, kidSchema, label, objectIdSchema } from "./fields.js";
import { summarySchema } from "./summary.js";

export const receiptSchemaId = "service/receipt@0.1" as const;
export const workflowId = "service/task-approval@0.1" as const;

export const receiptKinds = ["execution", "authorization", "closure"] as const;
export type ReceiptKind = (typeof receiptKinds)[number];
export const outcomes = ["succeeded", "failed", "final", "pending", "granted"] as const;
export type Outcome = (typeof outcomes)[number];

/**
 * The RECEIPT payload (SPEC 2.8): which thread and path it covers, the
 * outcome, and a manifest of the bundle it heads (every object id and every
 * identity document digest, in bundle order) so no part of the bundle can be
 * dropped, added or swapped without the Gateway's signature breaking.
 */
export const receiptPayloadSchema = z.strictObject({
  schema: z.literal(receiptSchemaId),
  workflow: z.literal(workflowId),
  kind: z.enum(receiptKinds),
  protected_action_id: label(64),
  root: objectIdSchema,
  head: objectIdSchema,
  outcome: z.enum(outcomes),
  objects: z.array(objectIdSchema).min(1),
  identities: z.array(z.strictObject({ kid: kidSchema, seq: z.int().min(0), digest: digestSchema })).min(1),
  trusted_attesters: z.array(kidSchema),
  summary: summarySchema,
});
export type ReceiptPayload = z.infer<typeof receiptPayloadSchema>;
