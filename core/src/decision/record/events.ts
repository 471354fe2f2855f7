import type { DecisionCall } from "../authorize-call.js";
import type { DecisionContext } from "../context.js";
import {
  actionAllowed,
  actionAuthorized,
  actionDenied,
  approvalRequested,
  observeOverride,
  type EventAction,
  type PolicyObject,
} from "./event-data.js";
import { receiptCreated, type ReceiptRecord } from "../../actions/index.js";
import type { EventRecord } from "../../webhooks/outbox.js";
import type { RecordedVerdict } from "../verdict-view.js";

export interface DecisionEventsInput {
  id: string;
  ctx: DecisionContext;
  call: DecisionCall;
  verdict: RecordedVerdict;
  expiresAt: Date | null;
  approvalId: string | null;
  receipt: ReceiptRecord | null;
}

/** The events a decision emits, written with it (webhooks, SPEC 6). */
export function decisionEvents(e: DecisionEventsInput): EventRecord[] {
  const { verdict, call } = e;
  const tool = verdict.facts.tool;
  const evaluation = verdict.evaluation;
  const action: EventAction = {
    protected_action_id: e.id,
    agent: { id: e.ctx.agent.id, name: e.ctx.agent.name },
    tool: tool.exposedName,
    action: tool.action,
    execution: call.execution,
    environment: call.key.environment,
  };
  const policy: PolicyObject | null = evaluation
    ? {
        policy_id: evaluation.policy.id,
        version: evaluation.policy.version,
        digest: evaluation.policy.digest,
        rule_id: evaluation.decision.rule_id,
        policy_effect: evaluation.decision.effect,
        enforcement: evaluation.enforcement,
        relaxed: evaluation.relaxed,
        observe_window: evaluation.observeWindow?.id ?? null,
      }
    : null;

  if (verdict.kind === "denied")
    return [actionDenied(action, { code: verdict.code, message: verdict.detail, policy })];
  const expiresAt = e.expiresAt!.toISOString();
  if (verdict.kind === "approval")
    return [
      approvalRequested(action, {
        approval_request_id: e.approvalId!,
        expires_at: expiresAt,
        roles: verdict.roles,
        approver_count: verdict.approverCount,
        policy: policy!,
      }),
    ];
  const relaxed = verdict.evaluation.relaxed ? [observeOverride(action, policy!)] : [];
  // Allowed and Gateway-enforced: not executed yet; its receipt comes with the RESULT.
  if (!e.receipt) return [actionAllowed(action, policy!), ...relaxed];
  return [
    actionAuthorized(action, {
      expires_at: expiresAt,
      approval_request_id: null,
      receipt_id: e.receipt.id,
      policy,
    }),
    receiptCreated({
      receipt_id: e.receipt.id,
      protected_action_id: e.id,
      receipt_object_id: e.receipt.receiptObjectId,
      thread_id: e.receipt.threadId,
      outcome: e.receipt.outcome,
      bundle_sha256: e.receipt.bundleSha256,
    }),
    ...relaxed,
  ];
}
