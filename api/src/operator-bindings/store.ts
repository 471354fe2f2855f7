import type { Queryable } from "@countersign/core/store";
import type { OperatorBinding } from "@countersign/protocol/wire";

export interface BindingRow extends Omit<OperatorBinding, "created_at"> {
  created_at: Date;
}

const COLUMNS = "id, username, role, allow_admin_changes, created_by, created_at";

export async function listBindings(db: Queryable, orgId: string): Promise<BindingRow[]> {
  const { rows } = await db.query<BindingRow>(
    `select ${COLUMNS} from operator_bindings where organization_id = $1 order by created_at, id`,
    [orgId],
  );
  return rows;
}

/** A unique violation when the ServiceAccount is already bound. */
export async function insertBinding(
  db: Queryable,
  b: {
    orgId: string;
    username: string;
    role: OperatorBinding["role"];
    allowAdminChanges: boolean;
    createdBy: string | null;
  },
): Promise<BindingRow> {
  const { rows } = await db.query<BindingRow>(
    `insert into operator_bindings (organization_id, username, role, allow_admin_changes, created_by)
     values ($1, $2, $3, $4, $5) returning ${COLUMNS}`,
    [b.orgId, b.username, b.role, b.allowAdminChanges, b.createdBy],
  );
  return rows[0]!;
}

/** Deletes the binding; its username, or undefined when the organization has no such binding. */
export async function deleteBinding(db: Queryable, orgId: string, id: string): Promise<string | undefined> {
  const { rows } = await db.query<{ username: string }>(
    "delete from operator_bindings where id = $1 and organization_id = $2 returning username",
    [id, orgId],
  );
  return rows[0]?.username;
}
