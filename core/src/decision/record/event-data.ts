import type { EventRecord } from "../../webhooks/outbox.js";

/**
 * Data of the webhook events a decision writes to the outbox (SPEC 6.1, 6.2;
 * docs/webhooks.md). `receipt.created` is exactly the spec's list; the others
 * are ours. No event carries arguments, explanations or secrets.
 */

export interface PolicyObject {
  policy_id: string;
  version: number;
  digest: string;
  rule_id: string | null;
  policy_effect: "allow" | "require_approval" | "deny";
  enforcement: "enforce" | "observe";
  relaxed: boolean;
  observe_window: string | null;
}

export interface EventAction {
  protected_action_id: string;
  agent: { id: string; name: string };
  tool: string;
  action: string;
  execution: "gateway" | "caller";
  environment: "live" | "test";
}

export function actionAuthorized(
  action: EventAction,
  x: {
    expires_at: string;
    approval_request_id: string | null;
    receipt_id: string;
    policy: PolicyObject | null;
  },
): EventRecord {
  return { type: "action.authorized", data: { ...action, ...x } };
}

/** A Gateway-enforced call allowed (before it runs). */
export function actionAllowed(action: EventAction, policy: PolicyObject): EventRecord {
  return { type: "action.allowed", data: { ...action, policy } };
}

export function actionDenied(
  action: EventAction,
  x: { code: string; message: string; policy: PolicyObject | null },
): EventRecord {
  return {
    type: "action.denied",
    data: { ...action, policy: x.policy, reason: { code: x.code, message: x.message } },
  };
}

export function approvalRequested(
  action: EventAction,
  x: {
    approval_request_id: string;
    expires_at: string;
    roles: string[];
    approver_count: number;
    policy: PolicyObject;
  },
): EventRecord {
  return { type: "approval.requested", data: { ...action, ...x } };
}

export function observeOverride(action: EventAction, policy: PolicyObject): EventRecord {
  return { type: "action.observe_override", data: { ...action, policy } };
}
