import type { ApproverRole, Effect, PolicyDocument } from "./document/schema.js";
import { compilePolicy } from "./compile.js";

/**
 * What a decision is asked about. `amount` and `currency` come from the
 * tool's amount mapping (exact decimal text, never a float); `arguments` are
 * the exact arguments of the call. `agent` and `environment` are facts for
 * explanations only: an agent has one policy, and test and live keys reach
 * the same tools (SPEC 2.2), so no condition reads them.
 */
export interface PolicyInput {
  agent?: { id: string; name?: string } | null;
  /** Exposed tool name. */
  tool: string;
  action: string;
  amount?: string | null;
  currency?: string | null;
  arguments?: Readonly<Record<string, unknown>>;
  environment?: "live" | "test";
}

export interface DecisionApprovers {
  roles: readonly ApproverRole[];
  count: number;
}

/**
 * The policy's answer. Decisions are precomputed per rule and frozen, so the
 * hot path returns a shared object and allocates nothing for it.
 */
export interface Decision {
  effect: Effect;
  /** Deciding rule, or null when the default decided. */
  rule_id: string | null;
  /** Index of the deciding rule in the document, -1 for the default. */
  rule_index: number;
  /** For require_approval: who approves. Null otherwise. */
  approvers: DecisionApprovers | null;
  /** The rule's own lifetime; null means the organization's default applies. */
  approval_ttl_seconds: number | null;
  description: string | null;
  guard: boolean;
  /**
   * Whether an observe window may relax this decision: it restricts the call
   * and came from neither an explicit deny rule nor a guard (SPEC 3.9).
   */
  relaxable: boolean;
}

/** Effects ordered by how much they restrict: the basis of precedence and of simulation. */
export const restriction: Readonly<Record<Effect, number>> = Object.freeze({
  allow: 0,
  require_approval: 1,
  deny: 2,
});

/** Thrown for input the Gateway should have refused earlier (e.g. an amount that is not a decimal). */
export class PolicyInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PolicyInputError";
  }
}

/** One-off evaluation; for repeated use compile once with compilePolicy. */
export function evaluatePolicy(document: PolicyDocument, input: PolicyInput): Decision {
  return compilePolicy(document).evaluate(input);
}
