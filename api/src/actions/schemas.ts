import { z } from "zod";
import {
  actionAnswerSchema,
  actionListSchema,
  actionStatusSchema,
  cancellationAnswerSchema,
  type Action,
  type ActionSummary,
  type PolicyDecision,
} from "@countersign/protocol/wire";
import { instantSchema, pageQuery } from "../http/shared.js";
import type { ActionRow } from "./store.js";

export const actionParams = z.strictObject({ org_id: z.uuid(), action_id: z.uuid() });

export const actionListQuery = z.strictObject({
  ...pageQuery,
  status: actionStatusSchema.optional(),
  agent_id: z.uuid().optional(),
  tool: z.string().min(1).max(128).optional(),
  action: z.string().min(1).max(200).optional(),
  execution: z.enum(["gateway", "caller"]).optional(),
  environment: z.enum(["live", "test"]).optional(),
  policy_id: z.uuid().optional(),
  since: instantSchema.optional(),
  until: instantSchema.optional(),
});

/** What each route answers with 200 (errors are the conventions' `{error}`). */
export const actionResponses = {
  list: { 200: actionListSchema },
  one: { 200: actionAnswerSchema },
  cancel: { 200: cancellationAnswerSchema },
};

/** The policy decision recorded on an action (SPEC 2.6 table), or null for one decided before any policy (e.g. a refused amount). */
export function policyDecisionJson(
  a: Pick<
    ActionRow,
    | "policy_id"
    | "policy_version_id"
    | "policy_version"
    | "policy_digest"
    | "rule_id"
    | "policy_effect"
    | "enforcement"
  >,
): PolicyDecision | null {
  if (!a.policy_id) return null;
  return {
    policy_id: a.policy_id,
    version_id: a.policy_version_id,
    version: a.policy_version,
    digest: a.policy_digest,
    rule_id: a.rule_id,
    policy_effect: a.policy_effect,
    enforcement: a.enforcement,
  };
}

/** The short form: what a receipt or approval request lists about its action. */
export function actionSummaryJson(a: ActionRow): ActionSummary {
  return {
    id: a.id,
    status: a.status,
    execution: a.execution,
    agent: { id: a.agent_id, name: a.agent_name },
    tool: a.tool_name,
    action: a.action,
  };
}

/** Every field of SPEC 2.6, plus the ids that link the action to its approval request and receipt. */
export function actionJson(a: ActionRow): Action {
  return {
    ...actionSummaryJson(a),
    environment: a.environment,
    tool_id: a.tool_id,
    error_code: a.error_code,
    arguments_digest: a.arguments_digest,
    request_fingerprint: a.request_fingerprint,
    idempotency_key: a.idempotency_key,
    amount: a.amount === null ? null : { value: a.amount, currency: a.currency! },
    policy: policyDecisionJson(a),
    decision_code: a.decision_code,
    explanation: a.explanation ?? null,
    approval_request_id: a.approval_request_id,
    receipt_id: a.receipt_id,
    expires_at: a.expires_at?.toISOString() ?? null,
    created_at: a.created_at.toISOString(),
    updated_at: a.updated_at.toISOString(),
    evidence: {
      status: a.evidence_deleted_at ? "deleted" : "hosted",
      deleted_at: a.evidence_deleted_at?.toISOString() ?? null,
    },
  };
}
