export { checkArguments, argumentLimits, type ArgumentCheck, type ArgumentProblem } from "./argument-limits.js";
export { mapAmount, amountMapping, type AmountMapping, type MappedAmount } from "./amount.js";
export { resolveApprovers, MAX_APPROVER_IDENTITIES, IDENTITIES_PER_MEMBER, type Approver, type ApproverResolution } from "./approvers.js";
export { loadDecisionContext, type DecisionContext } from "./context.js";
export { type AuthorizeCall, type AuthorizeAnswer, type AuthorizeService } from "./service.js";
