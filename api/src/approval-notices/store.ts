import type { Queryable } from "@countersign/core/store";

/** An approval request claimed for notices, with what its e-mail names (never the call's arguments). */
export interface ClaimedRequest {
  id: string;
  organization_id: string;
  organization_name: string;
  agent_name: string;
  tool_name: string;
  amount: string | null;
  currency: string | null;
  expires_at: Date;
  /** Still pending and not lapsed: only such a request is worth an e-mail. */
  waiting: boolean;
  approver_kids: string[];
  /** The rule's approving roles, as the Gateway recorded them. */
  roles: string[];
}

/**
 * Claims up to `limit` approval requests no notice was sent for and marks them notified in the
 * same statement, skipping rows another api process holds: each request is claimed by exactly one
 * process (its e-mails are then sent outside any transaction, so a person deciding the request or
 * the Gateway expiring it never waits for the mail server).
 */
export async function claimUnnotified(db: Queryable, limit: number): Promise<ClaimedRequest[]> {
  const { rows } = await db.query<ClaimedRequest>(
    `with claimed as (
       select id from approval_requests
        where notified_at is null
        order by created_at
        limit $1
        for update skip locked
     ), marked as (
       update approval_requests ar set notified_at = now()
         from claimed where ar.id = claimed.id
       returning ar.*
     )
     select m.id, m.organization_id, o.name as organization_name, a.name as agent_name,
            pa.tool_name, pa.amount::text as amount, pa.currency, m.expires_at,
            (m.status = 'pending' and pa.status = 'pending_approval' and m.expires_at > now()) as waiting,
            m.approver_kids, m.roles
       from marked m
       join organizations o on o.id = m.organization_id
       join protected_actions pa on pa.id = m.protected_action_id
       join agents a on a.id = pa.agent_id
      order by m.created_at`,
    [limit],
  );
  return rows;
}

/**
 * The people an approval request's e-mail goes to: the owners of the personal identities the
 * request names as its approvers (the same list core/src/approvals/decide.ts checks a decision's
 * signer against), who still hold one of its roles in its organization, enabled, with that identity
 * active (the people api/src/approvals/store.ts counts as `approvers_left`), with a verified
 * address, and who did not turn these e-mails off. One row per person.
 */
export async function recipientsOf(
  db: Queryable,
  request: { organization_id: string; approver_kids: readonly string[]; roles: readonly string[] },
): Promise<{ user_id: string; email: string }[]> {
  const { rows } = await db.query<{ user_id: string; email: string }>(
    `select distinct u.id as user_id, u.email
       from identities i
       join users u on u.id = i.user_id
        and u.disabled_at is null and u.deleted_at is null
        and u.email_verified_at is not null and u.approval_emails
       join memberships m on m.user_id = u.id and m.organization_id = $1 and m.role = any($3::text[])
      where i.kid = any($2::text[]) and i.kind = 'personal' and i.status = 'active'
      order by u.id`,
    [request.organization_id, request.approver_kids, request.roles],
  );
  return rows;
}
