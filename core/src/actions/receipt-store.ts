import type { Queryable } from "../store/queryable.js";
import { newRowId } from "../store/row-id.js";
import type { IssuedReceipt } from "../evidence/index.js";
import { receiptCreated, receiptInsert } from "./receipts.js";

const INSERT_RECEIPT = `with receipt as (
  ${receiptInsert({
    id: "$1::uuid",
    organizationId: "$2::uuid",
    protectedActionId: "$3::uuid",
    kind: "$4",
    receiptObjectId: "$5",
    threadId: "$6",
    headObjectId: "$7",
    outcome: "$8",
    issuerKid: "$9",
    bundle: "$10",
    bundleSha256: "$11",
  })}
  returning organization_id)
insert into events (organization_id, type, data) select organization_id, 'receipt.created', $12 from receipt`;

/**
 * Stores an issued receipt and its `receipt.created` event (SPEC 6.1) in one statement, inside
 * the caller's transaction: if either cannot be written, the caller's change is not recorded
 * either. Returns the receipt id.
 */
export async function insertReceipt(
  db: Queryable,
  r: { organizationId: string; actionId: string; issuerKid: string; issued: IssuedReceipt },
): Promise<string> {
  const id = newRowId();
  const { issued } = r;
  const event = receiptCreated({
    receipt_id: id,
    protected_action_id: r.actionId,
    receipt_object_id: issued.receiptObjectId,
    thread_id: issued.threadId,
    outcome: issued.outcome,
    bundle_sha256: issued.bundleSha256,
  });
  await db.query(INSERT_RECEIPT, [
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
    JSON.stringify(event.data),
  ]);
  return id;
}
