import type { Effect } from "../document/schema.js";

/** What the caller knows about the decision beyond the policy itself. */
export interface ExplanationContext {
  /** The policy as the agent may see it: name, version number, document digest. */
  policy: { name: string; version: number; digest: string };
  enforcement?: "enforce" | "observe";
  /** The recorded decision's status (denied, approval_pending, ...); derived from the effect when absent. */
  decision?: string;
  /**
   * Set when a check rather than the policy decided (e.g. "delegation"): the
   * explanation then names the check and no rule.
   */
  check?: string;
  /** The organization's default approval lifetime, used when the rule sets none. */
  organization_approval_ttl_seconds?: number;
}

export const decisionOfEffect: Readonly<Record<Effect, string>> = Object.freeze({
  allow: "allowed",
  require_approval: "approval_pending",
  deny: "denied",
});

export interface DecidedBy {
  kind: string;
  rule_id: string | null;
  description: string | null;
}

export interface ApprovalSummary {
  roles: string[];
  approver_count: number;
  ttl_seconds: number | null;
}
