import type { GatewayCode } from "@countersign/protocol/errors";
import type { ActionView } from "../actions/index.js";
import type { DecisionContext } from "./context.js";
import type { Verdict } from "./pipeline.js";

/** A verdict that records an action: everything but a refusal before deciding. */
export type RecordedVerdict = Exclude<Verdict, { kind: "refused" }>;

/**
 * What a verdict makes of its action (SPEC 3.1, 3.2), before any id exists:
 * the status, the refusal, the expiry and the policy columns an answer is
 * built from. The Gateway records it (authorize.ts) and the Cloud API's dry
 * run answers from it (api/src/dry-run), so the two cannot diverge.
 */
export interface VerdictOutcome {
  status: "denied" | "pending_approval" | "authorized" | "approved";
  decisionCode: GatewayCode | null;
  decisionDetail: string | null;
  /** When an allowed call's authorization, or an approval request, ends; null for a denial. */
  expiresAt: Date | null;
  agentExplanation: unknown;
  enforcement: "enforce" | "observe" | null;
  relaxed: boolean;
  policyEffect: "allow" | "require_approval" | "deny" | null;
  ruleId: string | null;
  observeEndsAt: Date | null;
}

/**
 * The outcome of a recorded verdict. An allowed call is `authorized` for its
 * caller (decision-only) or `approved` to be run by the Gateway (/mcp). An
 * allowed call lasts the organization's approval lifetime and an approval
 * request the rule's; neither outlives the delegation (SPEC 2.1).
 */
export function verdictOutcome(
  ctx: DecisionContext,
  verdict: RecordedVerdict,
  execution: "caller" | "gateway",
  now: Date,
): VerdictOutcome {
  const ev = verdict.evaluation;
  const common = {
    agentExplanation: verdict.kind === "denied" ? verdict.agentExplanation : (ev?.agentExplanation ?? null),
    enforcement: ev?.enforcement ?? null,
    relaxed: ev?.relaxed ?? false,
    policyEffect: ev?.decision.effect ?? null,
    ruleId: ev?.decision.rule_id ?? null,
    observeEndsAt: ev?.observeWindow ? new Date(ev.observeWindow.endsAt) : null,
  };
  if (verdict.kind === "denied")
    return {
      status: "denied",
      decisionCode: verdict.code,
      decisionDetail: verdict.detail,
      expiresAt: null,
      ...common,
    };
  const ttlSeconds = verdict.kind === "approval" ? verdict.ttlSeconds : ctx.organization.approvalTtlSeconds;
  const expiresAt = new Date(
    Math.min(now.getTime() + ttlSeconds * 1000, Date.parse(verdict.facts.delegation.expiresAt)),
  );
  if (verdict.kind === "approval")
    return {
      status: "pending_approval",
      decisionCode: "APPROVAL_PENDING",
      decisionDetail: null,
      expiresAt,
      ...common,
    };
  return {
    status: execution === "gateway" ? "approved" : "authorized",
    decisionCode: null,
    decisionDetail: null,
    expiresAt,
    ...common,
  };
}

/** The ids of what recording a decision creates; a dry run creates none of them. */
export interface RecordedIds {
  id: string;
  taskObjectId: string | null;
  proposalObjectId: string | null;
  approvalId: string | null;
  receipt: { id: string; receiptObjectId: string; outcome: string } | null;
}

/** Ids of things never created (a dry run): the answers built from the view carry null for each. */
export const NOTHING_RECORDED: RecordedIds = Object.freeze({
  id: "",
  taskObjectId: null,
  proposalObjectId: null,
  approvalId: null,
  receipt: null,
});

/**
 * The view of a freshly decided action (action-view.ts), without reading it
 * back: what answers.ts builds the caller's answer from, the first time and
 * on every repeat.
 */
export function verdictView(
  ctx: DecisionContext,
  outcome: VerdictOutcome,
  call: { execution: "caller" | "gateway"; requestFingerprint: string; argumentsDigest: string },
  ids: RecordedIds,
): ActionView {
  const pending = outcome.status === "pending_approval";
  return {
    id: ids.id,
    organizationId: ctx.organization.id,
    agentId: ctx.agent.id,
    status: outcome.status,
    execution: call.execution,
    decisionCode: outcome.decisionCode,
    decisionDetail: outcome.decisionDetail,
    requestFingerprint: call.requestFingerprint,
    argumentsDigest: call.argumentsDigest,
    expiresAt: outcome.expiresAt,
    taskObjectId: ids.taskObjectId,
    proposalObjectId: ids.proposalObjectId,
    agentExplanation: outcome.agentExplanation,
    enforcement: outcome.enforcement,
    relaxed: outcome.relaxed,
    policyEffect: outcome.policyEffect,
    ruleId: outcome.ruleId,
    observeEndsAt: outcome.observeEndsAt,
    approval: pending
      ? { id: ids.approvalId ?? "", status: "pending", expiresAt: outcome.expiresAt!, decisionObjectId: null }
      : null,
    receipt: ids.receipt,
    errorCode: null,
    result: null,
    resultObjectId: null,
  };
}
