import type { Queryable } from "@countersign/core/store";

/**
 * Locks the account and every organization it owns (in id order, so two
 * deletions never deadlock) and names the first owned organization that has
 * no other live owner, if any.
 */
export async function lockAndFindSoleOwnership(db: Queryable, userId: string): Promise<string | null> {
  await db.query("select 1 from users where id = $1 for update", [userId]);
  const { rows: owned } = await db.query<{ organization_id: string }>(
    `select m.organization_id from memberships m join organizations o on o.id = m.organization_id
      where m.user_id = $1 and m.role = 'owner' order by m.organization_id for update of o`,
    [userId],
  );
  for (const { organization_id } of owned) {
    const { rows } = await db.query<{ n: string }>(
      `select count(*) as n from memberships m join users u on u.id = m.user_id
        where m.organization_id = $1 and m.role = 'owner' and u.deleted_at is null`,
      [organization_id],
    );
    if (Number(rows[0]!.n) <= 1) return organization_id;
  }
  return null;
}

/** Marks the account deleted and ends its sessions and memberships; returns the memberships it had. */
export async function deleteAccount(
  db: Queryable,
  userId: string,
): Promise<{ organization_id: string; role: string }[]> {
  await db.query("update users set deleted_at = now() where id = $1", [userId]);
  await db.query("delete from sessions where user_id = $1", [userId]);
  const { rows } = await db.query<{ organization_id: string; role: string }>(
    "delete from memberships where user_id = $1 returning organization_id, role",
    [userId],
  );
  return rows;
}

/** The person's choice of approver e-mails (api/src/approval-notices/ reads it when mailing). */
export async function setApprovalEmails(db: Queryable, userId: string, on: boolean): Promise<void> {
  await db.query("update users set approval_emails = $2 where id = $1 and deleted_at is null", [userId, on]);
}
