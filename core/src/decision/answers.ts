import { statusOf, type GatewayCode } from "@countersign/protocol/errors";
import type { ActionView } from "../actions/index.js";
import type { AuthorizeAnswer } from "./authorize-call.js";

/** The `note` of SPEC 4.1: what an authorization allows, and only that. */
export const AUTHORIZATION_NOTE =
  "Only an allowed call may be performed: perform it at most once, exactly as authorized (arguments bound by arguments_digest), before expires_at, and record what you performed under protected_action_id.";

type Body = Record<string, unknown>;

/** The `policy` member of an authorization or completed call: null unless decided under an observe window (SPEC 4.2 `_meta.service.policy`). */
export function observePolicyOf(v: ActionView): Body | null {
  if (v.enforcement !== "observe") return null;
  const out: Body = {
    enforcement: "observe",
    relaxed: v.relaxed,
    observe_ends_at: v.observeEndsAt?.toISOString() ?? null,
  };
  if (v.agentExplanation !== null) {
    out.policy_effect = v.policyEffect;
    out.rule_id = v.ruleId;
  }
  return out;
}

function receiptIds(v: ActionView): Body {
  return {
    task_object_id: v.taskObjectId,
    proposal_object_id: v.proposalObjectId,
    receipt_object_id: v.receipt?.receiptObjectId ?? null,
    receipt_id: v.receipt?.id ?? null,
  };
}

/** A recorded decision that is not (or no longer) an allow, as both modes refuse it (SPEC 7.3). */
export interface RecordedRefusal {
  code: GatewayCode;
  detail: string;
  /** Ids and times the caller gets with it. */
  extra: Body;
  /** The agent explanation stored with the decision (SPEC 2.9), or null. */
  explanation: ({ message?: string } & Body) | null;
}

/** The refusal of a recorded action in a refusing state: pending, denied, rejected, cancelled, expired. */
export function recordedRefusal(v: ActionView): RecordedRefusal {
  const explanation = v.agentExplanation as RecordedRefusal["explanation"];
  const approval = { approval_request_id: v.approval?.id ?? null };
  switch (v.status) {
    case "pending_approval":
      return {
        code: "APPROVAL_PENDING",
        detail:
          v.execution === "gateway"
            ? // tools/call: keyless identical calls resume it too (identical-held-store.ts), which LLM-driven clients need.
              "a person must approve this call; to resume it, repeat the identical call later (same tool, same arguments, and the same service/idempotency-key if this one had one): it runs once, after the approval"
            : "a person must approve this call; repeat the identical request with the same idempotency key to resume",
        extra: { ...approval, expires_at: v.approval?.expiresAt.toISOString() ?? null },
        explanation,
      };
    case "rejected":
      return {
        code: "REJECTED",
        detail: "an approver rejected this call",
        extra: { ...approval, ...receiptIds(v) },
        explanation,
      };
    case "cancelled":
      return {
        code: "CANCELLED",
        detail: "the organization cancelled this call",
        extra: { ...approval, ...receiptIds(v) },
        explanation,
      };
    case "expired":
      return {
        code: (v.decisionCode ?? "APPROVAL_EXPIRED") as GatewayCode,
        detail: v.decisionDetail ?? "closed without running; a new call gets a new decision",
        extra: approval,
        explanation,
      };
    default:
      return {
        code: (v.decisionCode ?? "POLICY_DENIED") as GatewayCode,
        detail: v.decisionDetail ?? "denied",
        extra: {},
        explanation,
      };
  }
}

/** A refusal of a recorded decision: the stored explanation, exactly as first given (SPEC 2.9). */
function refusal(v: ActionView): AuthorizeAnswer {
  const r = recordedRefusal(v);
  const body: Body = {
    allowed: false,
    status: statusOf(r.code),
    code: r.code,
    detail: r.detail,
    protected_action_id: v.id,
    ...r.extra,
  };
  if (r.explanation) {
    body.policy = r.explanation;
    body.why = `Why: ${r.explanation.message}`;
  }
  return { http: 200, body };
}

/**
 * The answer of POST /v1/authorize for a recorded action, first time or
 * repeated (SPEC 4.1, 3.2): the same stored row gives the same answer.
 */
export function answerFor(v: ActionView, now: Date): AuthorizeAnswer {
  switch (v.status) {
    case "authorized": {
      if (v.expiresAt && now.getTime() >= v.expiresAt.getTime()) {
        return {
          http: 200,
          body: {
            allowed: false,
            status: "expired",
            code: "AUTHORIZATION_EXPIRED",
            detail:
              "this authorization expired; it is not permission to act now. Ask again without this idempotency key, or with a new one.",
            protected_action_id: v.id,
            approval_request_id: v.approval?.id ?? null,
            expires_at: v.expiresAt.toISOString(),
            arguments_digest: v.argumentsDigest,
            ...receiptIds(v),
          },
        };
      }
      return {
        http: 200,
        body: {
          allowed: true,
          status: "authorized",
          decision: "allow",
          execution: "caller",
          protected_action_id: v.id,
          approval_request_id: v.approval?.id ?? null,
          expires_at: v.expiresAt!.toISOString(),
          ...receiptIds(v),
          arguments_digest: v.argumentsDigest,
          policy: observePolicyOf(v),
          note: AUTHORIZATION_NOTE,
        },
      };
    }
    default:
      return refusal(v);
  }
}

/** An answer that records nothing (invalid_request, TOOL_REAUTHORIZATION_REQUIRED, plan_limit, unavailable...). */
export function unrecordedAnswer(code: GatewayCode, detail: string): AuthorizeAnswer {
  const status = statusOf(code);
  const http =
    status === "invalid_request"
      ? 400
      : status === "unauthorized"
        ? 401
        : status === "unavailable"
          ? 503
          : 200;
  const body: Body = { allowed: false, status, code, detail };
  if (status === "unavailable") body.retryable = true;
  return { http, body };
}
