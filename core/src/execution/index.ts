/** Gateway-enforced execution (SPEC 1.2): claim once, call the upstream, sign the RESULT, recover the interrupted. */
export {
  claimExecution,
  EXECUTION_DEADLINE_MS,
  type Claim,
  type ClaimInput,
  type ExecutionPlan,
} from "./claim.js";
export { claimWithDecision, type ClaimWithDecisionFn } from "./claim-at-decision.js";
export { finishExecution, type ExecutionOutcome, type Finish, type FinishedExecution } from "./finish.js";
export { recoverInterrupted, startRecovery } from "./recover.js";
export { acceptAttested, evidenceMeta, serverIdentityOf, type ServiceAwareCall } from "./service-aware.js";
