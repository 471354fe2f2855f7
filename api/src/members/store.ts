import type { Queryable } from "@countersign/core/store";
import type { Role } from "@countersign/protocol/wire";

export interface MemberRow {
  user_id: string;
  email: string;
  name: string | null;
  role: Role;
  created_at: Date;
}

/** Every live member, oldest first. */
export async function listMembers(db: Queryable, orgId: string): Promise<MemberRow[]> {
  const { rows } = await db.query<MemberRow>(
    `select m.user_id, u.email, u.name, m.role, m.created_at from memberships m join users u on u.id = m.user_id
      where m.organization_id = $1 and u.deleted_at is null order by m.created_at, m.user_id`,
    [orgId],
  );
  return rows;
}

/** Locks the organization's memberships (to count its owners safely) and returns them. */
export async function lockMembers(db: Queryable, orgId: string): Promise<{ user_id: string; role: Role }[]> {
  const { rows } = await db.query<{ user_id: string; role: Role }>(
    "select user_id, role from memberships where organization_id = $1 for update",
    [orgId],
  );
  return rows;
}

export async function setRole(db: Queryable, orgId: string, userId: string, role: Role): Promise<void> {
  await db.query("update memberships set role = $3 where organization_id = $1 and user_id = $2", [
    orgId,
    userId,
    role,
  ]);
}

/** Ends a membership; the person's sessions that were in the organization are in none now. */
export async function removeMember(db: Queryable, orgId: string, userId: string): Promise<void> {
  await db.query("delete from memberships where organization_id = $1 and user_id = $2", [orgId, userId]);
  await db.query(
    "update sessions set current_organization_id = null where user_id = $1 and current_organization_id = $2",
    [userId, orgId],
  );
}

export async function addMember(db: Queryable, orgId: string, userId: string, role: string): Promise<void> {
  await db.query("insert into memberships (organization_id, user_id, role) values ($1, $2, $3)", [
    orgId,
    userId,
    role,
  ]);
}

export async function isMember(db: Queryable, orgId: string, userId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    "select 1 from memberships where organization_id = $1 and user_id = $2",
    [orgId, userId],
  );
  return !!rowCount;
}

/** Whether a live account of this (lowercased) address is a member. */
export async function isMemberByEmail(db: Queryable, orgId: string, email: string): Promise<boolean> {
  const { rowCount } = await db.query(
    "select 1 from memberships m join users u on u.id = m.user_id where m.organization_id = $1 and lower(u.email) = $2 and u.deleted_at is null",
    [orgId, email],
  );
  return !!rowCount;
}
