/**
 * Gateway refusal statuses and codes of SPEC 7.3: the eleven statuses and, for
 * each code, the status it belongs to. /mcp tool results and POST /v1/authorize
 * answers both take their `status` and `code` from here.
 */
export const gatewayStatuses = [
  "denied",
  "approval_pending",
  "rejected",
  "expired",
  "cancelled",
  "replay",
  "upstream_error",
  "plan_limit",
  "invalid_request",
  "unauthorized",
  "unavailable",
] as const;

export type GatewayStatus = (typeof gatewayStatuses)[number];

export const gatewayCodes = {
  POLICY_DENIED: "denied",
  NO_POLICY: "denied",
  INVALID_POLICY: "denied",
  NO_DELEGATION: "denied",
  NO_PRINCIPAL: "denied",
  NO_APPROVERS: "denied",
  TOO_MANY_APPROVERS: "denied",
  INVALID_AMOUNT: "denied",
  INVALID_TOOL_CONFIGURATION: "denied",
  IDENTITY_EQUIVOCATION: "denied",
  ENGINE_REFUSED: "denied",
  TOOL_REAUTHORIZATION_REQUIRED: "denied",
  UPSTREAM_CHANGED: "denied",
  POLICY_CHANGED: "denied",
  OBSERVE_ENDED: "denied",
  VERIFICATION_FAILED: "denied",
  APPROVAL_PENDING: "approval_pending",
  REJECTED: "rejected",
  APPROVAL_EXPIRED: "expired",
  TASK_EXPIRED: "expired",
  SUPERSEDED: "expired",
  AUTHORIZATION_EXPIRED: "expired",
  CANCELLED: "cancelled",
  REPLAY: "replay",
  EXECUTION_IN_PROGRESS: "replay",
  DUPLICATE_IN_FLIGHT: "replay",
  UPSTREAM_TOOL_ERROR: "upstream_error",
  UPSTREAM_REFUSED: "upstream_error",
  UPSTREAM_UNREACHABLE: "upstream_error",
  UPSTREAM_TIMEOUT: "upstream_error",
  UPSTREAM_HTTP_ERROR: "upstream_error",
  UPSTREAM_PROTOCOL_ERROR: "upstream_error",
  UPSTREAM_BLOCKED: "upstream_error",
  UPSTREAM_RESPONSE_TOO_LARGE: "upstream_error",
  UPSTREAM_ERROR: "upstream_error",
  // Beyond SPEC 7.3's list (docs/gateway.md): the upstream asked for sampling or elicitation during the call.
  UPSTREAM_INPUT_REQUIRED: "upstream_error",
  UPSTREAM_CREDENTIAL_INVALID: "upstream_error",
  UPSTREAM_IDENTITY_UNKNOWN: "upstream_error",
  UPSTREAM_IDENTITY_TOO_LARGE: "upstream_error",
  UPSTREAM_EVIDENCE_TOO_LARGE: "upstream_error",
  ATTESTATION_MISSING: "upstream_error",
  ATTESTATION_INVALID: "upstream_error",
  OUTPUT_NOT_CANONICAL: "upstream_error",
  OUTPUT_NOT_STORABLE: "upstream_error",
  RESULT_NOT_STORABLE: "upstream_error",
  GATEWAY_ERROR: "upstream_error",
  RESULT_NOT_RECORDED: "upstream_error",
  PLAN_LIMIT_EXCEEDED: "plan_limit",
  UNKNOWN_TOOL: "invalid_request",
  INVALID_META: "invalid_request",
  INVALID_ARGUMENTS: "invalid_request",
  INVALID_REQUEST: "invalid_request",
  NOT_FOUND: "invalid_request",
  IDEMPOTENCY_KEY_REUSED: "invalid_request",
  INVALID_STATE: "invalid_request",
  DECISION_ONLY_TOOL: "invalid_request",
  NOT_DECISION_ONLY: "invalid_request",
  UNAUTHORIZED: "unauthorized",
  DATABASE_UNAVAILABLE: "unavailable",
  GATEWAY_SHUTTING_DOWN: "unavailable",
  GATEWAY_BUSY: "unavailable",
  // Beyond SPEC 7.3's list (docs/errors.md): POST /v1/authorize failed inside the Gateway. SPEC 4.1
  // gives that endpoint no 500 and no upstream; it answers 503 `unavailable` as for any "cannot decide now".
  INTERNAL_ERROR: "unavailable",
} as const satisfies Record<string, GatewayStatus>;

export type GatewayCode = keyof typeof gatewayCodes;

export function statusOf(code: GatewayCode): GatewayStatus {
  return gatewayCodes[code];
}

/** Codes whose answer invites the caller to try again (SPEC 7.3 `retryable`). */
export const retryableGatewayCodes: ReadonlySet<GatewayCode> = new Set([
  "DATABASE_UNAVAILABLE",
  "GATEWAY_SHUTTING_DOWN",
  "GATEWAY_BUSY",
  "INTERNAL_ERROR",
]);

/** JSON-RPC error codes of the HTTP-level Gateway answers (SPEC 7.3). */
export const jsonRpcErrors = {
  UNAUTHORIZED: -32001,
  RATE_LIMITED: -32000,
  WRONG_METHOD: -32000,
  BODY_TOO_LARGE: -32600,
  INVALID_REQUEST: -32600,
  PARSE_ERROR: -32700,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
} as const;
