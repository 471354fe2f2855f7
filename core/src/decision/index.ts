/**
 * The decision pipeline shared by both protection modes and the Cloud API's
 * dry run (SPEC 1.7): context in one read, a pure verdict, signed evidence,
 * one write; repeats, approvals and waits resume the recorded action.
 */
export {
  checkArguments,
  argumentLimits,
  type ArgumentCheck,
  type ArgumentProblem,
} from "./argument-limits.js";
export { mapAmount, amountMapping, type AmountMapping, type MappedAmount } from "./amount.js";
export {
  resolveApprovers,
  deniedForApprovers,
  MAX_APPROVER_IDENTITIES,
  IDENTITIES_PER_MEMBER,
  type Approver,
  type ApproverResolution,
} from "./approvers.js";
export { loadDecisionContext, type DecisionContext } from "./context.js";
export { admitGatewayCall, type Admission, type CallIntent } from "./admission.js";
export { BUCKET } from "./bucket.js";
export { StaleAdmission, WarmAdmissions, type WarmTicket } from "./warm-admission.js";
export {
  decideCall,
  type CallInput,
  type Verdict,
  type Evaluation,
  type DecidedFacts,
  type CallFacts,
} from "./pipeline.js";
export { PolicyCache } from "./policy-cache.js";
export { DecisionService, type DecisionServiceOptions } from "./decision-service.js";
export { LANGUAGE_REVISION } from "./language-revision.js";
export { WaitLimits } from "./wait-limits.js";
export {
  verdictOutcome,
  verdictView,
  NOTHING_RECORDED,
  type RecordedVerdict,
  type VerdictOutcome,
  type RecordedIds,
} from "./verdict-view.js";
export {
  answerFor,
  unrecordedAnswer,
  observePolicyOf,
  recordedRefusal,
  AUTHORIZATION_NOTE,
  type RecordedRefusal,
} from "./answers.js";
export {
  type AuthorizeCall,
  type AuthorizeAnswer,
  type AuthorizeService,
  type DecisionCall,
  type ClaimWithDecisionFn,
  type ClaimedDecision,
  type Decided,
} from "./authorize-call.js";
