import { ServiceError } from "@countersign/protocol/errors";
import type { Queryable } from "@countersign/core/store";
import { ACTION_COLUMNS, ACTION_FROM, type ActionRow } from "../actions/store.js";

/** An approval request (SPEC 2.7) joined with its action and the action's signed PROPOSAL. */
export interface ApprovalRow extends ActionRow {
  ar_id: string;
  ar_status: "pending" | "approved" | "rejected" | "expired" | "superseded" | "cancelled";
  roles: string[];
  approver_count: number;
  approver_kids: string[];
  ar_expires_at: Date;
  decided_at: Date | null;
  decided_by_kid: string | null;
  decision_object_id: string | null;
  ar_created_at: Date;
  task_object_id: string | null;
  proposal: unknown;
  approvers_left: number;
}

/**
 * How many of the request's approver identities can still decide it: active personal identities
 * of enabled members who hold one of its roles. Zero means no one can: its keys were unbound, or
 * their people left or lost the role, and a key bound since does not count for it.
 */
const APPROVERS_LEFT = `(select count(*)::int from identities i
    join users u on u.id = i.user_id and u.disabled_at is null and u.deleted_at is null
    join memberships m on m.user_id = i.user_id and m.organization_id = ar.organization_id and m.role = any(ar.roles)
   where i.kid = any(ar.approver_kids) and i.kind = 'personal' and i.status = 'active')`;
const COLUMNS = `ar.id as ar_id, ar.status as ar_status, ar.roles, ar.approver_count, ar.approver_kids, ar.expires_at as ar_expires_at,
  ar.decided_at, ar.decided_by_kid, ar.decision_object_id, ar.created_at as ar_created_at, pa.task_object_id,
  po.object as proposal, ${ACTION_COLUMNS},
  ${APPROVERS_LEFT} as approvers_left`;
const FROM = `approval_requests ar join ${ACTION_FROM} on pa.id = ar.protected_action_id
  left join signed_objects po on po.object_id = pa.proposal_object_id`;

/** One approval request of the organization; NOT_FOUND when there is none. */
export async function readApproval(db: Queryable, organizationId: string, id: string): Promise<ApprovalRow> {
  const { rows } = await db.query<ApprovalRow>(
    `select ${COLUMNS} from ${FROM} where ar.id = $1 and ar.organization_id = $2`,
    [id, organizationId],
  );
  if (!rows[0]) throw new ServiceError("NOT_FOUND", "approval request not found");
  return rows[0];
}

/**
 * The held call's arguments as the RFC 8785 text the TASK's `arguments_digest` covers; null when the
 * call was held before they were kept, or once retention cleared them. Read only for a person who
 * may decide the request (routes.ts), never listed.
 */
export async function heldArguments(
  db: Queryable,
  organizationId: string,
  approvalId: string,
): Promise<string | null> {
  const { rows } = await db.query<{ arguments: string | null }>(
    `select pa.arguments from approval_requests ar join protected_actions pa on pa.id = ar.protected_action_id
      where ar.id = $1 and ar.organization_id = $2`,
    [approvalId, organizationId],
  );
  return rows[0]?.arguments ?? null;
}

export interface ApprovalFilter {
  status?: ApprovalRow["ar_status"];
  agent_id?: string;
  /** `[created_at, id]` of the last item of the previous page. */
  after?: [string, string];
  limit: number;
  now: Date;
}

/**
 * Newest first, `limit` rows. "pending" means still decidable at `now`; "expired" includes
 * pending requests past their expiry.
 */
export async function listApprovals(
  db: Queryable,
  organizationId: string,
  f: ApprovalFilter,
): Promise<ApprovalRow[]> {
  const { rows } = await db.query<ApprovalRow>(
    `select ${COLUMNS} from ${FROM}
      where ar.organization_id = $1
        and ($2::text is null
             or ($2 = 'pending' and ar.status = 'pending' and ar.expires_at > $3)
             or ($2 = 'expired' and (ar.status = 'expired' or (ar.status = 'pending' and ar.expires_at <= $3)))
             or ($2 not in ('pending', 'expired') and ar.status = $2))
        and ($4::uuid is null or pa.agent_id = $4)
        and ($5::timestamptz is null or (ar.created_at, ar.id) < ($5::timestamptz, $6::uuid))
      order by ar.created_at desc, ar.id desc limit $7`,
    [
      organizationId,
      f.status ?? null,
      f.now,
      f.agent_id ?? null,
      f.after?.[0] ?? null,
      f.after?.[1] ?? null,
      f.limit,
    ],
  );
  return rows;
}
