import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction, type Pool } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
import { bindingDigest } from "./binding.js";
import { authorizeBinding, readTool, type ToolRow } from "./store.js";

/**
 * Authorizes the tool's current binding (POST .../tools/<id>/authorize,
 * docs/configuration-api.md "Bindings"): only the binding the admin was
 * shown, by its digest; a binding that moved since is 409 BINDING_CHANGED.
 */
export async function authorizeTool(
  pool: Pool,
  q: { organizationId: string; toolId: string; bindingDigest: string; actor: Actor; userId: string | null },
): Promise<ToolRow> {
  return inTransaction(pool, async (db) => {
    const t = await readTool(db, q.organizationId, q.toolId, true);
    const digest = bindingDigest(t.binding);
    if (digest !== q.bindingDigest) {
      throw new ServiceError(
        "BINDING_CHANGED",
        "the tool's binding changed since it was shown; review it again",
        {
          binding_digest: digest,
        },
      );
    }
    await authorizeBinding(db, t.id, q.userId);
    await audit(db, {
      organizationId: q.organizationId,
      action: "tool.authorized",
      actor: q.actor,
      target: { type: "tool", id: t.id },
      details: { binding_digest: digest },
    });
    return readTool(db, q.organizationId, t.id);
  });
}
