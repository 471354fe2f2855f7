import type { MantineColor } from "@mantine/core";

/**
 * One colour per meaning, for every state shown anywhere in the dashboard: a badge for "pending" is
 * the same yellow on the approvals list, an action's page and the overview. Pages never choose a
 * state's colour themselves; they render <StatusBadge status=…/>.
 */
const meanings = {
  /** Waiting for a person or for time. */
  waiting: "yellow",
  /** Allowed, done, in force. */
  allowed: "green",
  /** Refused by policy or by a person, or withdrawn trust. */
  denied: "red",
  /** Tried and did not work. */
  failed: "orange",
  /** Ran out of time. */
  expired: "gray",
  /** Ended by someone or replaced by something newer. */
  ended: "dark",
  /** Under way. */
  running: "blue",
  /** Written, not yet in force. */
  draft: "cyan",
  /** Seen but not enforced (shadow and observe stages). */
  shadow: "violet",
  /** In force (policies, agents, keys). */
  active: "teal",
} as const satisfies Record<string, MantineColor>;

export type StatusMeaning = keyof typeof meanings;

const meaningOf: Record<string, StatusMeaning> = {
  pending: "waiting",
  pending_approval: "waiting",
  approval_pending: "waiting",
  require_approval: "waiting",
  reauthorization_required: "waiting",
  past_due: "waiting",
  scheduled_cancel: "waiting",
  open: "waiting",
  to_do: "waiting",
  allowed: "allowed",
  approved: "allowed",
  authorized: "allowed",
  granted: "allowed",
  succeeded: "allowed",
  delivered: "allowed",
  consistent: "allowed",
  valid: "allowed",
  done: "allowed",
  denied: "denied",
  rejected: "denied",
  revoked: "denied",
  equivocated: "denied",
  unauthorized: "denied",
  differs: "denied",
  invalid: "denied",
  plan_limit: "denied",
  failed: "failed",
  undetermined: "failed",
  expired: "expired",
  cancelled: "ended",
  superseded: "ended",
  replaced: "ended",
  disabled: "ended",
  deleted: "ended",
  ended: "ended",
  none: "ended",
  blocked: "ended",
  executing: "running",
  trialing: "running",
  hosted: "running",
  draft: "draft",
  shadow: "shadow",
  observe: "shadow",
  active: "active",
  enforce: "active",
};

/** The meaning of a state word (unknown words read as "ended", never as "allowed"). */
export function statusMeaning(status: string): StatusMeaning {
  return meaningOf[status] ?? "ended";
}

export function statusColor(status: string): MantineColor {
  return meanings[statusMeaning(status)];
}
