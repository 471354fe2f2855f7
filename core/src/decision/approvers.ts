import type { Queryable } from "../store/queryable.js";
import { statement } from "../store/statement.js";
import type { Verdict } from "./pipeline.js";

/** Limits of SPEC 2.7 / 8.5. */
export const MAX_APPROVER_IDENTITIES = 32;
export const IDENTITIES_PER_MEMBER = 5;

const APPROVERS = statement(
  "approvers",
  `select m.user_id, (array_agg(i.kid order by i.created_at desc))[1:$3] as kids
     from memberships m
     join users u on u.id = m.user_id and u.disabled_at is null and u.deleted_at is null
     join identities i on i.user_id = m.user_id and i.kind = 'personal' and i.status = 'active'
    where m.organization_id = $1 and m.role = any($2::text[])
    group by m.user_id
    order by m.user_id`,
);

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
  const { rows } = await db.query<{ user_id: string; kids: string[] }>(
    APPROVERS.with([organizationId, roles, IDENTITIES_PER_MEMBER]),
  );
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
