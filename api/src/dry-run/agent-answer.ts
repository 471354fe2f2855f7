import { answerFor, unrecordedAnswer, type ActionView, type AuthorizeAnswer, type DecisionContext, type Verdict } from "@countersign/core/decision";

/**
 * What the agent would receive for a verdict, in the body of POST
 * /v1/authorize (SPEC 4.1): the Gateway's own `answerFor` applied to the
 * action view its decision would record. Ids of things a dry run never
 * creates (the action, signed objects, the receipt, the approval request)
 * are null. Expiry times follow the Gateway's rule: an allowed call or an
 * approval request lasts the applicable lifetime, never past the delegation.
 */
export function agentAnswer(ctx: DecisionContext, verdict: Verdict, argumentsDigest: string, fingerprint: string, now: Date): AuthorizeAnswer {
  if (verdict.kind === "refused") return unrecorded(verdict.code, verdict.detail);
  const ev = verdict.evaluation;
  const view: ActionView = {
    id: "",
    organizationId: ctx.organization.id,
    agentId: ctx.agent.id,
    status: "denied",
    execution: verdict.facts.tool.serverKind === "decision_only" ? "caller" : "gateway",
    decisionCode: null,
    decisionDetail: null,
    requestFingerprint: fingerprint,
    argumentsDigest,
    expiresAt: null,
    taskObjectId: null,
    proposalObjectId: null,
    agentExplanation: verdict.kind === "denied" ? verdict.agentExplanation : (ev?.agentExplanation ?? null),
    enforcement: ev?.enforcement ?? null,
    relaxed: ev?.relaxed ?? false,
    policyEffect: ev?.decision.effect ?? null,
    ruleId: ev?.decision.rule_id ?? null,
    observeEndsAt: ev?.observeWindow ? new Date(ev.observeWindow.endsAt) : null,
    approval: null,
    receipt: null,
    errorCode: null,
    result: null,
    resultObjectId: null,
  };
  if (verdict.kind === "denied") {
    view.decisionCode = verdict.code;
    view.decisionDetail = verdict.detail;
  } else {
    const delegationEnds = Date.parse(verdict.facts.delegation.expiresAt);
    const ttl = verdict.kind === "approval" ? verdict.ttlSeconds : ctx.organization.approvalTtlSeconds;
    const expiresAt = new Date(Math.min(now.getTime() + ttl * 1000, delegationEnds));
    if (verdict.kind === "approval") {
      view.status = "pending_approval";
      view.approval = { id: "", status: "pending", expiresAt, decisionObjectId: null };
    } else {
      view.status = "authorized";
      view.expiresAt = expiresAt;
    }
  }
  return { http: 200, body: withoutIds(answerFor(view, now).body) };
}

/** The answer of a call that records nothing: the Gateway's own (core/src/decision/answers.ts). */
export const unrecorded = unrecordedAnswer;

const ID_MEMBERS = ["protected_action_id", "approval_request_id", "task_object_id", "proposal_object_id", "receipt_object_id", "receipt_id"];

function withoutIds(body: Record<string, unknown>): Record<string, unknown> {
  const out = { ...body };
  for (const k of ID_MEMBERS) if (k in out) out[k] = null;
  return out;
}
