import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction, type Pool } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
import { isUniqueViolation } from "../http/shared.js";
import { insertBinding, type BindingRow } from "./store.js";

/** Bind a Kubernetes ServiceAccount to the organization with a role, audited as `operator.bound`. */
export async function bindOperator(
  pool: Pool,
  q: {
    organizationId: string;
    username: string;
    role: BindingRow["role"];
    allowAdminChanges: boolean;
    createdBy: string | null;
    actor: Actor;
  },
): Promise<BindingRow> {
  return inTransaction(pool, async (db) => {
    let row: BindingRow;
    try {
      row = await insertBinding(db, {
        orgId: q.organizationId,
        username: q.username,
        role: q.role,
        allowAdminChanges: q.allowAdminChanges,
        createdBy: q.createdBy,
      });
    } catch (err) {
      if (isUniqueViolation(err))
        throw new ServiceError("CONFLICT", "this ServiceAccount is already bound", {
          reason: "ALREADY_BOUND",
        });
      throw err;
    }
    await audit(db, {
      organizationId: q.organizationId,
      action: "operator.bound",
      actor: q.actor,
      target: { type: "operator", id: row.username },
      details: { role: row.role, allow_admin_changes: row.allow_admin_changes },
    });
    return row;
  });
}
