import type { Queryable } from "@countersign/core/store";

export interface UserRow {
  id: string;
  email: string;
  name: string | null;
  password_hash: string;
  email_verified_at: Date | null;
  disabled_at: Date | null;
  /** E-mail me when an approval request waits for me (api/src/approval-notices/). */
  approval_emails: boolean;
}

const COLUMNS = "id, email, name, password_hash, email_verified_at, disabled_at, approval_emails";

/** The live account of an address (deleted accounts free their address). */
export async function userByEmail(db: Queryable, email: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(
    `select ${COLUMNS} from users where lower(email) = lower($1) and deleted_at is null`,
    [email],
  );
  return rows[0];
}

export async function userById(db: Queryable, id: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(
    `select ${COLUMNS} from users where id = $1 and deleted_at is null`,
    [id],
  );
  return rows[0];
}
