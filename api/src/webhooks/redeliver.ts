import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction, type Pool } from "@countersign/core/store";
import { lockDeliveryState, readDelivery, restartDelivery, type DeliveryRow } from "./delivery-store.js";
import { countSend, lockEndpoint, refuseDisabled } from "./send-checks.js";

/**
 * Redelivers a failed delivery (SPEC 3.7): the same event, delivery id and
 * body, a new round of attempts starting now; the endpoint must be enabled and
 * the sends limit not reached. A refusal changes and counts nothing.
 */
export async function redeliver(
  pool: Pool,
  q: { organizationId: string; endpointId: string; deliveryId: string },
): Promise<DeliveryRow> {
  return inTransaction(pool, async (db) => {
    const endpoint = await lockEndpoint(db, q.organizationId, q.endpointId);
    const state = await lockDeliveryState(db, q.endpointId, q.deliveryId);
    if (!state) throw new ServiceError("NOT_FOUND", "delivery not found");
    refuseDisabled(endpoint);
    if (state !== "failed")
      throw new ServiceError(
        "INVALID_STATE",
        `only a failed delivery can be redelivered; this one is ${state}`,
      );
    await countSend(db, q.endpointId);
    await restartDelivery(db, q.deliveryId);
    return readDelivery(db, q.deliveryId);
  });
}
