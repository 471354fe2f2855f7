import { z } from "zod";
import {
  decisionCheckAnswerSchema,
  receiptAnswerSchema,
  receiptKindValues,
  receiptListSchema,
  type ReceiptListItem,
} from "@countersign/protocol/wire";
import { actionSummaryJson, policyDecisionJson } from "../actions/schemas.js";
import { pageQuery } from "../http/shared.js";
import type { ReceiptRow } from "./store.js";

export const receiptParams = z.strictObject({ org_id: z.uuid(), receipt_id: z.uuid() });

export const receiptListQuery = z.strictObject({
  ...pageQuery,
  // Any text is a valid filter: `rejected` is no outcome, so it matches nothing (SPEC 2.8).
  outcome: z.string().min(1).max(40).optional(),
  kind: z.enum(receiptKindValues).optional(),
  agent_id: z.uuid().optional(),
  protected_action_id: z.uuid().optional(),
});

/** What each route answers with 200 (errors are the conventions' `{error}`). */
export const receiptResponses = {
  list: { 200: receiptListSchema },
  one: { 200: receiptAnswerSchema },
  decisionCheck: { 200: decisionCheckAnswerSchema },
  // The bundle file's bytes, sent as they are stored (fastify serialises no Buffer): they are
  // vouched for by `x-service-bundle-sha256` instead.
  bundle: { 200: z.instanceof(Buffer) },
};

/** The summary record of SPEC 2.8 with its action and policy decision, as the list and the detail begin. */
export function receiptJson(r: ReceiptRow): ReceiptListItem {
  return {
    id: r.r_id,
    kind: r.kind,
    protected_action_id: r.id,
    receipt_object_id: r.receipt_object_id,
    thread_id: r.thread_id,
    head_object_id: r.head_object_id,
    workflow: r.workflow,
    outcome: r.outcome,
    issuer_kid: r.issuer_kid,
    bundle_sha256: r.bundle_sha256,
    bundle_size: r.bundle_size,
    verified_at_issuance: r.r_evidence_deleted_at ? null : r.verified_at_issuance,
    created_at: r.r_created_at.toISOString(),
    evidence: {
      status: r.r_evidence_deleted_at ? "deleted" : "hosted",
      deleted_at: r.r_evidence_deleted_at?.toISOString() ?? null,
    },
    action: actionSummaryJson(r),
    policy: policyDecisionJson(r),
  };
}
