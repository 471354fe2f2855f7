import { cancelAction, type Cancellation } from "@countersign/core/actions";
import { audit, type Actor } from "../audit/record.js";
import type { ApiContext } from "../context.js";
import { gatewayIdentityOf } from "../evidence/options.js";
import { readAction } from "./store.js";

/**
 * Cancel a protected action with a CANCELLATION signed by the organization principal (SPEC 3.1;
 * core/src/actions/cancel.ts), audited as `action.cancelled` in the same transaction, with its
 * closure receipt. The action is looked up first, so a missing one is 404 even where the
 * installation has no signing key.
 */
export async function cancelProtectedAction(
  ctx: Pick<ApiContext, "pool" | "evidence">,
  q: { organizationId: string; actionId: string; cancellation: unknown; actor: Actor },
): Promise<Cancellation> {
  await readAction(ctx.pool, q.organizationId, q.actionId);
  const identity = await gatewayIdentityOf(ctx.pool, ctx.evidence);
  return cancelAction(ctx.pool, {
    organizationId: q.organizationId,
    protectedActionId: q.actionId,
    object: q.cancellation,
    identity,
    alsoRecord: (db, c) =>
      audit(db, {
        organizationId: q.organizationId,
        action: "action.cancelled",
        actor: q.actor,
        target: { type: "protected_action", id: c.protectedActionId },
        details: { cancellation_object_id: c.cancellationObjectId, receipt_id: c.receipt.id },
      }),
  });
}
