import type { Queryable } from "../store/queryable.js";
import type { ActionStatus } from "./status.js";

/**
 * Closing the open actions a rollback or an emergency stop covers (SPEC 3.6,
 * docs/policy-rollout.md). Covered: open actions decided under any version of
 * the policy other than the one now in force, plus open actions of agents
 * that use the policy now but were decided under another policy (agents moved
 * into it). `supersede_pending` covers pending approvals; `supersede_all` also
 * approved-not-executed actions and Gateway-executed allowed-not-executed
 * ones. A decision-only authorization already handed to the caller is not
 * covered: the caller holds it, and the service cannot take it back.
 *
 * Closing sets the action `expired` with code SUPERSEDED and its approval
 * request `superseded` (so a person's decision gets POLICY_VERSION_REPLACED);
 * it writes no webhook event (SPEC 6.1).
 */
export type SupersedeScope = "supersede_pending" | "supersede_all";

export interface Coverage {
  organizationId: string;
  policyId: string;
  /** The version in force after the change; null (emergency stop): every version's actions are covered. */
  versionId: string | null;
  scope: SupersedeScope;
}

/** The states a supersession may close; which of them a scope covers is OPEN below. */
const SUPERSEDABLE = [
  "pending_approval",
  "approved",
  "authorized",
] as const satisfies readonly ActionStatus[];

const OPEN = `(pa.status = 'pending_approval'
   or ($4 = 'supersede_all' and (pa.status = 'approved' or (pa.status = 'authorized' and pa.execution = 'gateway'))))`;

const COVERED = `pa.organization_id = $1
   and ((pa.policy_id = $2 and ($3::uuid is null or pa.policy_version_id is distinct from $3::uuid))
        or (pa.policy_id is distinct from $2 and pa.agent_id in (select id from agents where organization_id = $1 and policy_id = $2)))
   and ${OPEN}`;

/**
 * Locks the open actions a change may cover, before the change locks the
 * policy row. The Gateway's hand-out locks an action and then its policy; a
 * rollback taking them in the same order waits for a hand-out in progress (or
 * the hand-out waits for the rollback and then finds its action closed),
 * never a deadlock.
 */
export async function lockOpenActions(db: Queryable, c: Omit<Coverage, "versionId">): Promise<void> {
  // With no version given every version's open actions are locked: a superset of what the change covers.
  await db.query(`select pa.id from protected_actions pa where ${COVERED} order by pa.id for update of pa`, [
    c.organizationId,
    c.policyId,
    null,
    c.scope,
  ]);
}

const DETAIL =
  "a rollback or emergency stop of the policy closed this call before it ran; the identical call gets a new decision";

/**
 * pending_approval, approved or (Gateway-executed) authorized → expired with code SUPERSEDED,
 * for up to `batch` covered actions; returns how many. `skipLocked`: the worker passes over an
 * action another transaction holds (a hand-out or a person's decision in progress) and returns
 * to it on its next pass.
 */
export async function supersedeCovered(
  db: Queryable,
  c: Coverage,
  opts: { batch?: number; skipLocked?: boolean } = {},
): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `with covered as (
       select pa.id from protected_actions pa where ${COVERED}
        order by pa.created_at limit $5 for update of pa${opts.skipLocked ? " skip locked" : ""}),
     closed as (
       update protected_actions set status = 'expired', decision_code = 'SUPERSEDED', decision_detail = $6, updated_at = now()
        where id in (select id from covered) and status = any($7::text[]) returning id),
     requests as (
       update approval_requests set status = 'superseded'
        where protected_action_id in (select id from closed) and status in ('pending', 'approved') returning id)
     select (select count(*) from closed) as n, (select count(*) from requests) as r`,
    [c.organizationId, c.policyId, c.versionId, c.scope, opts.batch ?? null, DETAIL, SUPERSEDABLE],
  );
  return Number(rows[0]!.n);
}
