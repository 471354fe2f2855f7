/**
 * The answer of POST /v1/authorize (SPEC 4.1) as a typed result, members in
 * camelCase. Every decision is a result; only `allowed: true` (status
 * `authorized`) is permission to act, once, before `expiresAt`, with exactly
 * the authorized arguments.
 */
import {
  authorizationSchema,
  authorizeRefusalSchema,
  type AuthorizeRefusal,
  type ObservePolicy,
} from "@countersign/protocol/wire";
import { ServiceProtocolError } from "./errors.js";

/** `authorized`, or the status of an answer with `allowed` false (the Gateway's wire, SPEC 4.1). */
export type DecisionStatus = "authorized" | AuthorizeRefusal["status"];

/** The policy member of an authorization: null, or the observe window that relaxed it. */
export type AuthorizationPolicy = ObservePolicy | null;

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
  status: AuthorizeRefusal["status"];
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

/**
 * Reads a Gateway answer, validated by the Gateway's wire schemas (protocol/src/wire/gateway);
 * anything that is not one is `NOT_A_SERVICE_RESULT`, never success.
 */
export function readResult(body: unknown): AuthorizeResult {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw notAResult("the answer is not a JSON object");
  if ("allowed" in body && body.allowed === true) {
    const parsed = authorizationSchema.safeParse(body);
    if (!parsed.success)
      throw notAResult(
        `an answer with allowed true lacks the members of an authorization (${where(parsed.error)})`,
      );
    const b = parsed.data;
    return {
      allowed: true,
      status: "authorized",
      decision: "allow",
      execution: "caller",
      code: null,
      detail: b.note,
      protectedActionId: b.protected_action_id,
      approvalRequestId: b.approval_request_id,
      expiresAt: b.expires_at,
      taskObjectId: b.task_object_id,
      proposalObjectId: b.proposal_object_id,
      receiptObjectId: b.receipt_object_id,
      argumentsDigest: b.arguments_digest,
      receiptId: b.receipt_id,
      policy: b.policy,
      note: b.note,
    };
  }
  const parsed = authorizeRefusalSchema.safeParse(body);
  if (!parsed.success)
    throw notAResult(`the answer has no decision (allowed, status, code and detail: ${where(parsed.error)})`);
  const b = parsed.data;
  return {
    allowed: false,
    status: b.status,
    code: b.code,
    detail: b.detail,
    protectedActionId: b.protected_action_id ?? null,
    approvalRequestId: b.approval_request_id ?? null,
    expiresAt: b.expires_at ?? null,
    taskObjectId: b.task_object_id ?? null,
    proposalObjectId: b.proposal_object_id ?? null,
    receiptObjectId: b.receipt_object_id ?? null,
    receiptId: b.receipt_id ?? null,
    retryable: b.retryable === true,
    policy: b.policy ?? null,
  };
}

/** The first member that failed, never its value. */
function where(error: { issues: { path: PropertyKey[] }[] }): string {
  const path = error.issues[0]?.path ?? [];
  return path.length ? `member ${path.map(String).join(".")}` : "body";
}

function notAResult(why: string): ServiceProtocolError {
  return new ServiceProtocolError(`${why}; it is not a Gateway result and is not treated as one`);
}
