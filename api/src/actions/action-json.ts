/**
 * The protected action record of SPEC 2.6 as the Cloud API shows it
 * (docs/evidence-api.md "Actions"), and the short form receipts and approval
 * requests carry as `action`.
 */
export const ACTION_COLUMNS = `
  pa.id, pa.status, pa.execution, pa.environment, pa.agent_id, ag.name as agent_name, pa.tool_id, pa.tool_name, pa.action,
  pa.error_code, pa.arguments_digest, pa.request_fingerprint, pa.idempotency_key, pa.amount::text as amount, pa.currency,
  pa.policy_id, pa.policy_version_id, pa.policy_version, pa.policy_digest, pa.rule_id, pa.policy_effect, pa.enforcement,
  pa.decision_code, pa.explanation, pa.approval_request_id, pa.receipt_id, pa.expires_at, pa.created_at, pa.updated_at,
  pa.evidence_deleted_at`;
export const ACTION_FROM = "protected_actions pa join agents ag on ag.id = pa.agent_id";

export interface ActionRow {
  id: string;
  status: string;
  execution: "gateway" | "caller";
  environment: "live" | "test";
  agent_id: string;
  agent_name: string;
  tool_id: string | null;
  tool_name: string;
  action: string;
  error_code: string | null;
  arguments_digest: string;
  request_fingerprint: string;
  idempotency_key: string | null;
  amount: string | null;
  currency: string | null;
  policy_id: string | null;
  policy_version_id: string | null;
  policy_version: number | null;
  policy_digest: string | null;
  rule_id: string | null;
  policy_effect: string | null;
  enforcement: string | null;
  decision_code: string | null;
  explanation: unknown;
  approval_request_id: string | null;
  receipt_id: string | null;
  expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
  evidence_deleted_at: Date | null;
}

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
) {
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
export function actionSummaryJson(a: ActionRow) {
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
export function actionJson(a: ActionRow) {
  return {
    ...actionSummaryJson(a),
    environment: a.environment,
    tool_id: a.tool_id,
    error_code: a.error_code,
    arguments_digest: a.arguments_digest,
    request_fingerprint: a.request_fingerprint,
    idempotency_key: a.idempotency_key,
    amount: a.amount === null ? null : { value: a.amount, currency: a.currency },
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
