/**
 * The zod schemas of the Cloud API's wire bodies, shared by the api (request
 * parsing, the shape of what it answers) and its clients (the operator, the
 * CLI, the dashboard), so no wire type is declared twice. Policy documents and
 * examples are in `policy`, signed objects in `evidence`.
 */
export { pageSchema, pageQuery, type Page } from "./pages.js";
export { nameSchema } from "./names.js";
export {
  errorBodySchema,
  errorIssueSchema,
  issuesDetailsSchema,
  type ErrorBody,
  type ErrorIssue,
} from "./errors.js";
export {
  agentStatuses,
  agentSchema,
  agentAnswerSchema,
  agentListSchema,
  agentCreateSchema,
  agentPatchSchema,
  type Agent,
  type AgentInput,
  type AgentPatch,
} from "./agents.js";
export {
  delegationStates,
  delegationSchema,
  delegationAnswerSchema,
  delegationListSchema,
  delegationSubmissionSchema,
  revocationSubmissionSchema,
  type Delegation,
} from "./delegations.js";
export {
  managedKinds,
  managedBySchema,
  MANAGED_BY_HEADER,
  formatManagedBy,
  parseManagedBy,
  type ManagedBy,
  type ManagedKind,
} from "./managed-by.js";
export * from "./accounts.js";
export * from "./members.js";
export * from "./invitations.js";
export * from "./organizations.js";
export * from "./api-keys.js";
export { instantSchema } from "./instants.js";
export * from "./audit.js";
export * from "./billing.js";
export * from "./identities.js";
export * from "./operator-bindings.js";
export * from "./overview.js";
export * from "./webhooks.js";
export {
  actionStatuses,
  actionStatusSchema,
  actionSchema,
  actionSummarySchema,
  amountJsonSchema,
  actionAnswerSchema,
  actionListSchema,
  cancellationAnswerSchema,
  cancellationSubmissionSchema,
  evidenceStateSchema,
  issuedReceiptSchema,
  policyDecisionSchema,
  type Action,
  type ActionStatus,
  type ActionSummary,
  type PolicyDecision,
} from "./actions.js";
export {
  approvalStatuses,
  approvalSchema,
  approvalAnswerSchema,
  approvalListSchema,
  approvalDecisionAnswerSchema,
  approvalDecisionSubmissionSchema,
  type Approval,
} from "./approvals.js";
export {
  receiptKindValues,
  receiptListItemSchema,
  receiptDetailSchema,
  decisionCheckSchema,
  decisionCheckAnswerSchema,
  receiptAnswerSchema,
  receiptListSchema,
  type ReceiptListItem,
  type ReceiptDetail,
  type DecisionCheck,
} from "./receipts.js";
export * from "./mcp-servers.js";
export * from "./tools.js";
export * from "./urls.js";
export * from "./observe.js";
export * from "./dry-run.js";
export * from "./policies.js";
// The Gateway's wire: POST /v1/authorize and the service's members of /mcp.
export * from "./gateway/index.js";
