import { z } from "zod";
import {
  approvalAnswerSchema,
  approvalDecisionAnswerSchema,
  approvalListSchema,
  approvalStatuses,
  type Approval,
} from "@countersign/protocol/wire";
import { actionSummaryJson, policyDecisionJson } from "../actions/schemas.js";
import { pageQuery } from "../http/shared.js";
import type { ApprovalRow } from "./store.js";

export const approvalParams = z.strictObject({ org_id: z.uuid(), approval_id: z.uuid() });

export const approvalListQuery = z.strictObject({
  ...pageQuery,
  status: z.enum(approvalStatuses).optional(),
  agent_id: z.uuid().optional(),
});

/** What each route answers with 200 (errors are the conventions' `{error}`). */
export const approvalResponses = {
  list: { 200: approvalListSchema },
  one: { 200: approvalAnswerSchema },
  decision: { 200: approvalDecisionAnswerSchema },
};

/** A pending request past its expiry is shown as expired: nobody can decide it any more. */
const statusOf = (a: ApprovalRow, now: number) =>
  a.ar_status === "pending" && a.ar_expires_at.getTime() <= now ? "expired" : a.ar_status;

/**
 * The approval request of SPEC 2.7 (docs/evidence-api.md "Approvals"). It
 * carries the signed PROPOSAL so a browser can sign the APPROVAL or
 * REJECTION that answers it (thread, parent, call, on_behalf_of).
 */
export function approvalJson(a: ApprovalRow, now = Date.now()): Approval {
  return {
    id: a.ar_id,
    status: statusOf(a, now),
    protected_action_id: a.id,
    roles: a.roles,
    approver_count: a.approver_count,
    approver_kids: a.approver_kids,
    expires_at: a.ar_expires_at.toISOString(),
    decided_at: a.decided_at?.toISOString() ?? null,
    decided_by_kid: a.decided_by_kid,
    decision_object_id: a.decision_object_id,
    created_at: a.ar_created_at.toISOString(),
    action: {
      ...actionSummaryJson(a),
      amount: a.amount === null ? null : { value: a.amount, currency: a.currency! },
      arguments_digest: a.arguments_digest,
      environment: a.environment,
    },
    policy: policyDecisionJson(a),
    task_object_id: a.task_object_id,
    proposal: (a.proposal ?? null) as Approval["proposal"],
    approvers_left: a.approvers_left,
  };
}
