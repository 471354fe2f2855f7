import { TEST_EVENT_TYPE } from "@countersign/protocol/wire";
import { inTransaction, type Pool } from "@countersign/core/store";
import { insertEndpointEvent, readDelivery, type DeliveryRow } from "./delivery-store.js";
import { countSend, lockEndpoint, refuseDisabled } from "./send-checks.js";

/** Sends a test event to one enabled endpoint only (POST .../webhooks/<id>/test); its delivery. */
export async function sendTestEvent(
  pool: Pool,
  q: { organizationId: string; endpointId: string },
): Promise<DeliveryRow> {
  return inTransaction(pool, async (db) => {
    refuseDisabled(await lockEndpoint(db, q.organizationId, q.endpointId));
    await countSend(db, q.endpointId);
    const id = await insertEndpointEvent(db, q.organizationId, q.endpointId, TEST_EVENT_TYPE, {
      webhook_id: q.endpointId,
    });
    return readDelivery(db, id);
  });
}
