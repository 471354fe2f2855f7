import { z } from "zod";
import { pageSchema } from "./pages.js";
import { proposalBodySchema, signedObjectSchema } from "../evidence/index.js";
import {
  actionSummarySchema,
  amountJsonSchema,
  issuedReceiptSchema,
  policyDecisionSchema,
} from "./actions.js";

export const approvalStatuses = [
  "pending",
  "approved",
  "rejected",
  "expired",
  "superseded",
  "cancelled",
] as const;

/**
 * The approval request (SPEC 2.7): GET .../approvals items, `{approval}` of GET and of a decision.
 * It carries the signed PROPOSAL so that a person can sign the APPROVAL or REJECTION answering it.
 */
export const approvalSchema = z.strictObject({
  id: z.uuid(),
  status: z.enum(approvalStatuses),
  protected_action_id: z.uuid(),
  roles: z.array(z.string()),
  approver_count: z.number().int(),
  approver_kids: z.array(z.string()),
  expires_at: z.string(),
  decided_at: z.string().nullable(),
  decided_by_kid: z.string().nullable(),
  decision_object_id: z.string().nullable(),
  created_at: z.string(),
  action: actionSummarySchema.extend({
    amount: amountJsonSchema.nullable(),
    arguments_digest: z.string(),
    environment: z.enum(["live", "test"]),
  }),
  policy: policyDecisionSchema.nullable(),
  task_object_id: z.string().nullable(),
  /** Null once retention deleted the hosted evidence (only of requests nobody can decide any more). */
  proposal: signedObjectSchema.extend({ body: proposalBodySchema }).nullable(),
  /**
   * GET of one request only: the held call's arguments as RFC 8785 JSON text, whose sha256 is the
   * signed `arguments_digest`, for a signed-in person whose role may decide the request (null for
   * anyone else, for calls held before arguments were kept, and after retention).
   */
  arguments: z.string().nullable().optional(),
  /**
   * How many of `approver_kids` can still decide: active personal identities of enabled members
   * holding one of `roles`. 0 on a pending request: no one can decide it; it expires, and the agent
   * asks again to be held for the approvers bound now.
   */
  approvers_left: z.number().int().optional(),
});
export type Approval = z.infer<typeof approvalSchema>;

/** POST .../approvals/<id>/decision: an APPROVAL or REJECTION signed with a bound personal key. */
export const approvalDecisionSubmissionSchema = z.strictObject({
  decision: z.record(z.string(), z.unknown()),
});

/** The answer of a decision: the request as it now is, and the closure receipt of a rejection. */
export const approvalDecisionAnswerSchema = z.strictObject({
  approval: approvalSchema,
  receipt: issuedReceiptSchema.nullable(),
});

/** GET .../approvals/<approval_id>: with the held call's arguments for whoever may decide it. */
export const approvalAnswerSchema = z.strictObject({ approval: approvalSchema });

/** GET .../approvals: a page of approval requests. */
export const approvalListSchema = pageSchema(approvalSchema);
