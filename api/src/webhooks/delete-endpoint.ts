import { inTransaction, type Pool } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
import { deleteEndpoint as deleteEndpointRow, endpointNotFound } from "./endpoint-store.js";

/** Deletes a webhook endpoint; its deliveries and their log go with it, the events stay. */
export async function deleteEndpoint(
  pool: Pool,
  q: { organizationId: string; endpointId: string; actor: Actor },
): Promise<void> {
  await inTransaction(pool, async (db) => {
    const url = await deleteEndpointRow(db, q.organizationId, q.endpointId);
    if (url === undefined) throw endpointNotFound();
    await audit(db, {
      organizationId: q.organizationId,
      action: "webhook.deleted",
      actor: q.actor,
      target: { type: "webhook", id: q.endpointId },
      details: { url },
    });
  });
}
