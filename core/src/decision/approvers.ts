import type { Queryable } from "../store/queryable.js";
import { approverRows } from "./approvers-store.js";
import type { Verdict } from "./pipeline.js";

/** Limits of SPEC 2.7 / 8.5. */
export const MAX_APPROVER_IDENTITIES = 32;
export const IDENTITIES_PER_MEMBER = 5;

export interface Approver {
  userId: string;
  kids: string[];
}

export type ApproverResolution =
  | { ok: true; approvers: Approver[]; kids: string[] }
  | { ok: false; code: "NO_APPROVERS" | "TOO_MANY_APPROVERS"; detail: string };

/**
 * Who may decide an approval request: enabled members of the organization with
 * one of the rule's roles and at least one active personal identity, each
 * counted with their 5 newest identities; more than 32 identities in all is
 * TOO_MANY_APPROVERS, fewer members than the rule's approver count NO_APPROVERS.
 */
export async function resolveApprovers(
  db: Queryable,
  organizationId: string,
  roles: readonly string[],
  count: number,
): Promise<ApproverResolution> {
  const { rows } = await approverRows(db, organizationId, roles, IDENTITIES_PER_MEMBER);
  const approvers = rows.map((r) => ({ userId: r.user_id, kids: r.kids }));
  const kids = approvers.flatMap((a) => a.kids);
  if (approvers.length === 0 || approvers.length < count) {
    return {
      ok: false,
      code: "NO_APPROVERS",
      detail: `no ${count > 1 ? `${count} ` : ""}members with a personal identity hold the approving roles`,
    };
  }
  if (kids.length > MAX_APPROVER_IDENTITIES) {
    return {
      ok: false,
      code: "TOO_MANY_APPROVERS",
      detail: `the approving roles admit more than ${MAX_APPROVER_IDENTITIES} approver identities`,
    };
  }
  return { ok: true, approvers, kids };
}

/**
 * An approval verdict whose approvers do not resolve: denied with the
 * resolution's code (NO_APPROVERS, TOO_MANY_APPROVERS) and the approval
 * rule's explanation, as the agent gets it from the Gateway and the dry run.
 */
export function deniedForApprovers(
  verdict: Extract<Verdict, { kind: "approval" }>,
  resolved: Extract<ApproverResolution, { ok: false }>,
): Extract<Verdict, { kind: "denied" }> {
  const explanation = verdict.evaluation.agentExplanation;
  return {
    kind: "denied",
    code: resolved.code,
    detail: resolved.detail,
    facts: verdict.facts,
    evaluation: verdict.evaluation,
    agentExplanation: explanation ? { ...explanation, decision: "denied" } : null,
  };
}
