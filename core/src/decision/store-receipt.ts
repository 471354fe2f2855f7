import { randomUUID } from "node:crypto";
import type { Queryable } from "../store/queryable.js";
import type { IssuedReceipt } from "./evidence.js";
import { receiptCreated } from "./events.js";

/**
 * Stores an issued receipt and its `receipt.created` event (SPEC 6.1) in one
 * statement, inside the caller's transaction: if either cannot be written,
 * the caller's change is not recorded either. Returns the receipt id.
 */
export async function storeReceipt(
  db: Queryable,
  r: { organizationId: string; actionId: string; issuerKid: string; issued: IssuedReceipt },
): Promise<string> {
  const id = randomUUID();
  const { issued } = r;
  const event = receiptCreated({
    receipt_id: id,
    protected_action_id: r.actionId,
    receipt_object_id: issued.receiptObjectId,
    thread_id: issued.threadId,
    outcome: issued.outcome,
    bundle_sha256: issued.bundleSha256,
  });
  await db.query(
    `with receipt as (
       insert into receipts (id, organization_id, protected_action_id, kind, receipt_object_id, thread_id, head_object_id,
                             workflow, outcome, issuer_kid, bundle, bundle_sha256, bundle_size)
       values ($1, $2, $3, $4, $5, $6, $7, 'service/task-approval@0.1', $8, $9, $10, $11, $12)
       returning organization_id)
     insert into events (organization_id, type, data) select organization_id, 'receipt.created', $13 from receipt`,
    [
      id,
      r.organizationId,
      r.actionId,
      issued.kind,
      issued.receiptObjectId,
      issued.threadId,
      issued.headObjectId,
      issued.outcome,
      r.issuerKid,
      issued.file,
      issued.bundleSha256,
      issued.bundleSize,
      JSON.stringify(event.data),
    ],
  );
  return id;
}
