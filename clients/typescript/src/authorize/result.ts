/**
 * The answer of POST /v1/authorize (SPEC 4.1) as a typed result, members in
 * camelCase. Every decision is a result; only `allowed: true` (status
 * `authorized`) is permission to act, once, before `expiresAt`, with exactly
 * the authorized arguments.
 */
import { ServiceProtocolError } from "./errors.js";

export type DecisionStatus =
  | "authorized"
  | "approval_pending"
  | "denied"
  | "rejected"
  | "expired"
  | "cancelled"
  | "plan_limit"
  | "invalid_request"
  | "unavailable";

/** The policy member of an authorization: null, or the observe window that relaxed it. */
export type AuthorizationPolicy = Record<string, unknown> | null;

export interface Authorization {
  allowed: true;
  status: "authorized";
  decision: "allow";
  execution: "caller";
  code: null;
  detail: string;
  protectedActionId: string;
  approvalRequestId: string | null;
  expiresAt: string;
  taskObjectId: string;
  proposalObjectId: string;
  receiptObjectId: string;
  argumentsDigest: string;
  receiptId: string;
  policy: AuthorizationPolicy;
  note: string;
}

export interface Refusal {
  allowed: false;
  status: Exclude<DecisionStatus, "authorized">;
  code: string;
  detail: string;
  /** Absent (null) for decisions that recorded nothing, such as invalid requests and plan limits. */
  protectedActionId: string | null;
  approvalRequestId: string | null;
  /** Of the approval request while pending; of the authorization for `AUTHORIZATION_EXPIRED`. */
  expiresAt: string | null;
  taskObjectId: string | null;
  proposalObjectId: string | null;
  receiptObjectId: string | null;
  receiptId: string | null;
  retryable: boolean;
  /** The agent explanation (`service.cloud/agent-explanation@1`) when the organization discloses it. */
  policy: Record<string, unknown> | null;
}

export type AuthorizeResult = Authorization | Refusal;

const REFUSAL_STATUSES = new Set([
  "approval_pending",
  "denied",
  "rejected",
  "expired",
  "cancelled",
  "plan_limit",
  "invalid_request",
  "unavailable",
]);

type Wire = Record<string, unknown>;

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** Reads a Gateway answer; anything that is not one is `NOT_A_SERVICE_RESULT`, never success. */
export function readResult(body: unknown): AuthorizeResult {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw notAResult("the answer is not a JSON object");
  const b = body as Wire;
  if (b.allowed === true) {
    const required = [
      "protected_action_id",
      "expires_at",
      "task_object_id",
      "proposal_object_id",
      "receipt_object_id",
      "arguments_digest",
      "receipt_id",
    ];
    if (
      b.status !== "authorized" ||
      b.decision !== "allow" ||
      b.execution !== "caller" ||
      required.some((m) => typeof b[m] !== "string")
    ) {
      throw notAResult("an answer with allowed true lacks the members of an authorization");
    }
    return {
      allowed: true,
      status: "authorized",
      decision: "allow",
      execution: "caller",
      code: null,
      detail: str(b.note) ?? "authorized",
      protectedActionId: b.protected_action_id as string,
      approvalRequestId: str(b.approval_request_id),
      expiresAt: b.expires_at as string,
      taskObjectId: b.task_object_id as string,
      proposalObjectId: b.proposal_object_id as string,
      receiptObjectId: b.receipt_object_id as string,
      argumentsDigest: b.arguments_digest as string,
      receiptId: b.receipt_id as string,
      policy: isObject(b.policy) ? b.policy : null,
      note: str(b.note) ?? "",
    };
  }
  if (
    b.allowed !== false ||
    typeof b.status !== "string" ||
    !REFUSAL_STATUSES.has(b.status) ||
    typeof b.code !== "string"
  ) {
    throw notAResult("the answer has no decision (allowed, status and code)");
  }
  return {
    allowed: false,
    status: b.status as Refusal["status"],
    code: b.code,
    detail: str(b.detail) ?? "",
    protectedActionId: str(b.protected_action_id),
    approvalRequestId: str(b.approval_request_id),
    expiresAt: str(b.expires_at),
    taskObjectId: str(b.task_object_id),
    proposalObjectId: str(b.proposal_object_id),
    receiptObjectId: str(b.receipt_object_id),
    receiptId: str(b.receipt_id),
    retryable: b.retryable === true,
    policy: isObject(b.policy) ? b.policy : null,
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function notAResult(why: string): ServiceProtocolError {
  return new ServiceProtocolError(`${why}; it is not a Gateway result and is not treated as one`);
}
