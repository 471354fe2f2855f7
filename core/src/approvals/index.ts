/** People's decisions on approval requests (SPEC 2.7), shared by the Cloud API route and the tests. */
export { decideApproval, type ApprovalDecisionInput, type ApprovalDecision } from "./decide.js";
