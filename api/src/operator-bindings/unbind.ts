import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction, type Pool } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
import { deleteBinding } from "./store.js";

/** Remove an operator binding, audited as `operator.unbound`; 404 when the organization has no such one. */
export async function unbindOperator(
  pool: Pool,
  q: { organizationId: string; bindingId: string; actor: Actor },
): Promise<void> {
  await inTransaction(pool, async (db) => {
    const username = await deleteBinding(db, q.organizationId, q.bindingId);
    if (!username) throw new ServiceError("NOT_FOUND", "binding not found");
    await audit(db, {
      organizationId: q.organizationId,
      action: "operator.unbound",
      actor: q.actor,
      target: { type: "operator", id: username },
    });
  });
}
