import type { Queryable } from "../store/queryable.js";
import { statement } from "../store/statement.js";
import type { ActionStatus } from "./status.js";

/**
 * A recorded action as far as answering its caller goes. The first answer and
 * every repeat are built from this same view (decision/answers.ts), so a repeat
 * carries exactly the stored refusal (SPEC 2.9) and the same ids (4.1).
 */
export interface ActionView {
  id: string;
  organizationId: string;
  agentId: string;
  status: ActionStatus;
  execution: "gateway" | "caller";
  decisionCode: string | null;
  decisionDetail: string | null;
  requestFingerprint: string;
  argumentsDigest: string;
  expiresAt: Date | null;
  taskObjectId: string | null;
  proposalObjectId: string | null;
  agentExplanation: unknown;
  enforcement: string | null;
  relaxed: boolean;
  policyEffect: string | null;
  ruleId: string | null;
  observeEndsAt: Date | null;
  approval: { id: string; status: string; expiresAt: Date; decisionObjectId: string | null } | null;
  receipt: { id: string; receiptObjectId: string; outcome: string } | null;
  /** Gateway-enforced calls that ran: the RESULT's error code, the upstream result kept for repeats, the RESULT's id. */
  errorCode: string | null;
  result: Record<string, unknown> | null;
  resultObjectId: string | null;
}

const QUERY = `
  select pa.id, pa.organization_id, pa.agent_id, pa.status, pa.execution, pa.decision_code, pa.decision_detail,
         pa.request_fingerprint, pa.arguments_digest, pa.expires_at, pa.task_object_id, pa.proposal_object_id,
         pa.agent_explanation, pa.enforcement, pa.relaxed, pa.policy_effect, pa.rule_id, w.ends_at as observe_ends_at,
         ar.id as approval_id, ar.status as approval_status, ar.expires_at as approval_expires_at, ar.decision_object_id,
         r.id as receipt_id, r.receipt_object_id, r.outcome as receipt_outcome, pa.error_code, pa.result, pa.result_object_id
    from protected_actions pa
    left join approval_requests ar on ar.id = pa.approval_request_id
    left join receipts r on r.id = pa.receipt_id
    left join observe_windows w on w.id = pa.observe_window_id
   where pa.id = $1`;
const READ = statement("action_view", QUERY);
const READ_LOCKED = statement("action_view_locked", `${QUERY} for update of pa`);

export async function readActionView(
  db: Queryable,
  id: string,
  lock = false,
): Promise<ActionView | undefined> {
  const { rows } = await db.query((lock ? READ_LOCKED : READ).with([id]));
  const r = rows[0];
  if (!r) return undefined;
  return {
    id: r.id,
    organizationId: r.organization_id,
    agentId: r.agent_id,
    status: r.status,
    execution: r.execution,
    decisionCode: r.decision_code,
    decisionDetail: r.decision_detail,
    requestFingerprint: r.request_fingerprint,
    argumentsDigest: r.arguments_digest,
    expiresAt: r.expires_at,
    taskObjectId: r.task_object_id,
    proposalObjectId: r.proposal_object_id,
    agentExplanation: r.agent_explanation,
    enforcement: r.enforcement,
    relaxed: r.relaxed,
    policyEffect: r.policy_effect,
    ruleId: r.rule_id,
    observeEndsAt: r.observe_ends_at,
    approval: r.approval_id
      ? {
          id: r.approval_id,
          status: r.approval_status,
          expiresAt: r.approval_expires_at,
          decisionObjectId: r.decision_object_id,
        }
      : null,
    receipt: r.receipt_id
      ? { id: r.receipt_id, receiptObjectId: r.receipt_object_id, outcome: r.receipt_outcome }
      : null,
    errorCode: r.error_code,
    result: r.result,
    resultObjectId: r.result_object_id,
  };
}
