import { z } from "zod";
import { pageSchema } from "./pages.js";

/**
 * The ten states of a protected action (SPEC 2.6). A decision records one of the first four; the
 * rest follow from a person, the Gateway, an admin or time (core/src/actions owns the changes).
 */
export const actionStatuses = [
  "denied",
  "pending_approval",
  "approved",
  "authorized",
  "executing",
  "succeeded",
  "failed",
  "rejected",
  "cancelled",
  "expired",
] as const;
export type ActionStatus = (typeof actionStatuses)[number];
export const actionStatusSchema = z.enum(actionStatuses);

/** An amount as the Cloud API shows it: a decimal string and its currency. */
export const amountJsonSchema = z.strictObject({ value: z.string(), currency: z.string() });

/** The policy decision recorded on an action (SPEC 2.6), null for one decided before any policy. */
export const policyDecisionSchema = z.strictObject({
  policy_id: z.uuid(),
  version_id: z.uuid().nullable(),
  version: z.number().int().nullable(),
  digest: z.string().nullable(),
  rule_id: z.string().nullable(),
  policy_effect: z.enum(["allow", "require_approval", "deny"]).nullable(),
  enforcement: z.enum(["enforce", "observe"]).nullable(),
});
export type PolicyDecision = z.infer<typeof policyDecisionSchema>;

/** What a receipt or an approval request lists about its action: `action` of those records. */
export const actionSummarySchema = z.strictObject({
  id: z.uuid(),
  status: actionStatusSchema,
  execution: z.enum(["gateway", "caller"]),
  agent: z.strictObject({ id: z.uuid(), name: z.string() }),
  tool: z.string(),
  action: z.string(),
});
export type ActionSummary = z.infer<typeof actionSummarySchema>;

/** Whether the hosted evidence is still kept (retention deletes it, SPEC 8.7). */
export const evidenceStateSchema = z.strictObject({
  status: z.enum(["hosted", "deleted"]),
  deleted_at: z.string().nullable(),
});

/** The protected action record (SPEC 2.6): GET .../actions items, `{action}` of GET and cancel. */
export const actionSchema = actionSummarySchema.extend({
  environment: z.enum(["live", "test"]),
  tool_id: z.uuid().nullable(),
  error_code: z.string().nullable(),
  arguments_digest: z.string(),
  request_fingerprint: z.string(),
  idempotency_key: z.string().nullable(),
  amount: amountJsonSchema.nullable(),
  policy: policyDecisionSchema.nullable(),
  decision_code: z.string().nullable(),
  explanation: z.unknown(),
  approval_request_id: z.uuid().nullable(),
  receipt_id: z.uuid().nullable(),
  expires_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  evidence: evidenceStateSchema,
});
export type Action = z.infer<typeof actionSchema>;

/** The ids of the receipt a change issued: `receipt` of a cancellation or a person's decision. */
export const issuedReceiptSchema = z.strictObject({
  id: z.uuid(),
  receipt_object_id: z.string(),
  outcome: z.string(),
});

/** POST .../actions/<id>/cancel: a CANCELLATION signed by the organization principal. */
export const cancellationSubmissionSchema = z.strictObject({
  cancellation: z.record(z.string(), z.unknown()),
});

/** The answer of a cancellation: the action as it now is, and its closure receipt. */
export const cancellationAnswerSchema = z.strictObject({
  action: actionSchema,
  receipt: issuedReceiptSchema,
});

/** GET .../actions/<action_id>. */
export const actionAnswerSchema = z.strictObject({ action: actionSchema });

/** GET .../actions: a page of actions. */
export const actionListSchema = pageSchema(actionSchema);
