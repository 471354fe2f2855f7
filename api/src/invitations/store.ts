import type { Queryable } from "@countersign/core/store";
import type { Role } from "@countersign/protocol/wire";

export interface InvitationRow {
  id: string;
  email: string;
  role: Role;
  invited_by: string | null;
  created_at: Date;
  expires_at: Date;
}

const COLUMNS = "id, email, role, invited_by, created_at, expires_at";

/** Members plus open invitations: what the plan's member limit counts. */
export async function seatsTaken(
  db: Queryable,
  orgId: string,
  exceptInvitation: string | null = null,
): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `select (select count(*) from memberships where organization_id = $1)
          + (select count(*) from invitations where organization_id = $1 and accepted_at is null and revoked_at is null
                and expires_at > now() and id is distinct from $2) as n`,
    [orgId, exceptInvitation],
  );
  return Number(rows[0]!.n);
}

export async function listOpenInvitations(db: Queryable, orgId: string): Promise<InvitationRow[]> {
  const { rows } = await db.query<InvitationRow>(
    `select ${COLUMNS} from invitations
      where organization_id = $1 and accepted_at is null and revoked_at is null and expires_at > now()
      order by created_at, id`,
    [orgId],
  );
  return rows;
}

/**
 * Whether an address already has an open invitation, once its expired ones
 * are revoked (an expired invitation no longer blocks a new one).
 */
export async function hasOpenInvitation(db: Queryable, orgId: string, email: string): Promise<boolean> {
  await db.query(
    "update invitations set revoked_at = now() where organization_id = $1 and lower(email) = $2 and accepted_at is null and revoked_at is null and expires_at <= now()",
    [orgId, email],
  );
  const { rowCount } = await db.query(
    "select 1 from invitations where organization_id = $1 and lower(email) = $2 and accepted_at is null and revoked_at is null",
    [orgId, email],
  );
  return !!rowCount;
}

export async function insertInvitation(
  db: Queryable,
  i: {
    orgId: string;
    email: string;
    role: Role;
    tokenHash: Buffer;
    invitedBy: string | null;
    ttlSeconds: number;
  },
): Promise<InvitationRow> {
  const { rows } = await db.query<InvitationRow>(
    `insert into invitations (organization_id, email, role, token_hash, invited_by, expires_at)
     values ($1, $2, $3, $4, $5, now() + make_interval(secs => $6)) returning ${COLUMNS}`,
    [i.orgId, i.email, i.role, i.tokenHash, i.invitedBy, i.ttlSeconds],
  );
  return rows[0]!;
}

/** Locks one invitation of the organization: undefined when there is none, else whether it is still open. */
export async function lockInvitation(
  db: Queryable,
  orgId: string,
  id: string,
): Promise<{ open: boolean } | undefined> {
  const { rows } = await db.query<{ open: boolean }>(
    "select (accepted_at is null and revoked_at is null) as open from invitations where id = $1 and organization_id = $2 for update",
    [id, orgId],
  );
  return rows[0];
}

export async function revokeInvitation(db: Queryable, id: string): Promise<void> {
  await db.query("update invitations set revoked_at = now() where id = $1", [id]);
}

export interface PendingInvitation {
  id: string;
  organization_id: string;
  email: string;
  role: Role;
  expired: boolean;
  open: boolean;
  plan: string | null;
}

/** The invitation of a token, with its organization's plan, both locked. */
export async function lockInvitationByToken(
  db: Queryable,
  tokenHash: Buffer,
): Promise<PendingInvitation | undefined> {
  const { rows } = await db.query<PendingInvitation>(
    `select i.id, i.organization_id, i.email, i.role, i.expires_at <= now() as expired,
            (i.accepted_at is null and i.revoked_at is null) as open, o.plan
       from invitations i join organizations o on o.id = i.organization_id
      where i.token_hash = $1 for update of i, o`,
    [tokenHash],
  );
  return rows[0];
}

export async function markAccepted(db: Queryable, id: string, userId: string): Promise<void> {
  await db.query("update invitations set accepted_at = now(), accepted_by = $2 where id = $1", [id, userId]);
}
