import { z } from "zod";
import { pageSchema } from "./pages.js";
import { summarySchema, verificationResultSchema } from "../evidence/index.js";
import { actionSummarySchema, evidenceStateSchema, policyDecisionSchema } from "./actions.js";

export const receiptKindValues = ["execution", "authorization", "closure"] as const;

/** The receipt's summary record (SPEC 2.8), common to the list and the detail. */
const receiptRecord = {
  id: z.uuid(),
  kind: z.enum(receiptKindValues),
  protected_action_id: z.uuid(),
  receipt_object_id: z.string(),
  thread_id: z.string(),
  head_object_id: z.string(),
  outcome: z.string(),
  issuer_kid: z.string(),
  bundle_sha256: z.string(),
  bundle_size: z.number().int(),
  verified_at_issuance: z.boolean().nullable(),
  created_at: z.string(),
  evidence: evidenceStateSchema,
  action: actionSummarySchema,
  policy: policyDecisionSchema.nullable(),
};

/** GET .../receipts items. */
export const receiptListItemSchema = z.strictObject({ ...receiptRecord, workflow: z.string() });
export type ReceiptListItem = z.infer<typeof receiptListItemSchema>;

const verdictSchema = z.strictObject({ policy_effect: z.string(), rule_id: z.string().nullable() });

/** `{receipt}` of GET .../receipts/<id>: the record and what its bundle, just verified, says. */
export const receiptDetailSchema = z.strictObject({
  ...receiptRecord,
  workflow: z.strictObject({ id: z.string(), digest: z.string() }),
  issued_at: z.string(),
  summary: summarySchema.nullable(),
  result: z.strictObject({
    status: z.string().nullable(),
    digest: z.string().nullable(),
    error_code: z.string().nullable(),
  }),
  chain: z.array(
    z.strictObject({
      id: z.string(),
      type: z.string(),
      actor: z.string(),
      on_behalf_of: z.string().nullable(),
      issued_at: z.string(),
    }),
  ),
  participants: z.array(
    z.strictObject({
      kid: z.string(),
      actor_type: z.string().nullable(),
      name: z.string().nullable(),
      subject_id: z.string().nullable(),
    }),
  ),
  delegations: z.array(
    z.strictObject({
      object_id: z.string(),
      signed_by: z.string(),
      permissions: z.array(z.string()),
      expires_at: z.string(),
      passed: z.boolean(),
      revocation: z.strictObject({ object_id: z.string(), issued_at: z.string() }).nullable(),
    }),
  ),
  attestations: z.array(
    z.strictObject({
      object_id: z.string(),
      subject: z.string(),
      claim: z.string(),
      attester: z.string(),
      trusted: z.boolean(),
    }),
  ),
  trusted_attesters: z.array(z.string()),
  verification: verificationResultSchema,
  /** The evidence worker's stored report, null until it ran or after retention. */
  verification_at_issuance: z.record(z.string(), z.unknown()).nullable(),
});
export type ReceiptDetail = z.infer<typeof receiptDetailSchema>;

/** `{decision_check}` of GET .../receipts/<id>/decision-check (SPEC 4.4). */
export const decisionCheckSchema = z.strictObject({
  receipt_id: z.uuid(),
  protected_action_id: z.uuid(),
  checked_at: z.string(),
  status: z.enum(["consistent", "differs", "undetermined"]),
  reason: z.string(),
  matches: z.boolean().nullable(),
  policy: z
    .strictObject({
      policy_id: z.string(),
      version_id: z.string(),
      version: z.number().int(),
      digest: z.string(),
    })
    .nullable(),
  signed: verdictSchema.nullable(),
  call: z
    .strictObject({
      tool: z.string(),
      action: z.string(),
      amount: z.strictObject({ value: z.string(), currency: z.string() }).nullable(),
      arguments_digest: z.string(),
    })
    .optional(),
  document_digest: z.string().nullable().optional(),
  evaluated: verdictSchema.nullable(),
  possible: z.array(verdictSchema),
});
export type DecisionCheck = z.infer<typeof decisionCheckSchema>;

/** GET .../receipts/<receipt_id>. */
export const receiptAnswerSchema = z.strictObject({ receipt: receiptDetailSchema });
/** GET .../receipts/<receipt_id>/decision-check. */
export const decisionCheckAnswerSchema = z.strictObject({ decision_check: decisionCheckSchema });

/** GET .../receipts: a page of receipts. */
export const receiptListSchema = pageSchema(receiptListItemSchema);
