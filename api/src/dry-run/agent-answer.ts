import {
  answerFor,
  NOTHING_RECORDED,
  unrecordedAnswer,
  verdictOutcome,
  verdictView,
  type AuthorizeAnswer,
  type DecisionContext,
  type Verdict,
} from "@countersign/core/decision";

/**
 * What the agent would receive for a verdict, in the body of POST
 * /v1/authorize (SPEC 4.1): the Gateway's own outcome and view of the verdict
 * (core/src/decision/verdict-view.ts) and its own `answerFor`, so the two
 * cannot diverge. Ids of things a dry run never creates (the action, signed
 * objects, the receipt, the approval request) are null.
 *
 * A call the Gateway runs itself (/mcp) is, when allowed, run upstream next:
 * what the upstream returns cannot be known without running it, so the
 * answer shows the authorization the call would run under.
 */
export function agentAnswer(
  ctx: DecisionContext,
  verdict: Verdict,
  argumentsDigest: string,
  fingerprint: string,
  now: Date,
): AuthorizeAnswer {
  if (verdict.kind === "refused") return unrecorded(verdict.code, verdict.detail);
  const execution = verdict.facts.tool.serverKind === "decision_only" ? "caller" : "gateway";
  const outcome = verdictOutcome(ctx, verdict, "caller", now);
  const view = verdictView(
    ctx,
    outcome,
    { execution, requestFingerprint: fingerprint, argumentsDigest },
    NOTHING_RECORDED,
  );
  return { http: 200, body: withoutIds(answerFor(view, now).body) };
}

/** The answer of a call that records nothing: the Gateway's own (core/src/decision/answers.ts). */
export const unrecorded = unrecordedAnswer;

const ID_MEMBERS = [
  "protected_action_id",
  "approval_request_id",
  "task_object_id",
  "proposal_object_id",
  "receipt_object_id",
  "receipt_id",
];

function withoutIds(body: Record<string, unknown>): Record<string, unknown> {
  const out = { ...body };
  for (const k of ID_MEMBERS) if (k in out) out[k] = null;
  return out;
}
