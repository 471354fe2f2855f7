import { workflowId } from "@countersign/protocol/evidence";
import type { IssuedReceipt } from "../evidence/index.js";
import type { EventRecord } from "../webhooks/outbox.js";

/** A receipt as a decision write carries it (SPEC 2.8); its workflow is always `workflowId`. */
export interface ReceiptRecord {
  id: string;
  kind: "execution" | "authorization" | "closure";
  receiptObjectId: string;
  threadId: string;
  headObjectId: string;
  outcome: "succeeded" | "failed" | "final" | "pending" | "granted";
  issuerKid: string;
  bundle: Buffer;
  bundleSha256: string;
  verifiedAtIssuance: boolean | null;
}

/** The row of a receipt this Gateway just issued (the evidence worker verifies it later). */
export function receiptRecord(id: string, issued: IssuedReceipt, issuerKid: string): ReceiptRecord {
  return {
    id,
    kind: issued.kind,
    receiptObjectId: issued.receiptObjectId,
    threadId: issued.threadId,
    headObjectId: issued.headObjectId,
    outcome: issued.outcome,
    issuerKid,
    bundle: issued.file,
    bundleSha256: issued.bundleSha256,
    verifiedAtIssuance: null,
  };
}

/** The `receipt.created` event (SPEC 6.1) of a stored receipt: exactly the spec's fields. */
export function receiptCreated(r: {
  receipt_id: string;
  protected_action_id: string;
  receipt_object_id: string;
  thread_id: string;
  outcome: string;
  bundle_sha256: string;
}): EventRecord {
  return {
    type: "receipt.created",
    data: {
      receipt_id: r.receipt_id,
      protected_action_id: r.protected_action_id,
      receipt_object_id: r.receipt_object_id,
      thread_id: r.thread_id,
      outcome: r.outcome,
      bundle_sha256: r.bundle_sha256,
    },
  };
}

/** For each column of a receipt row, the SQL expression that gives it in the statement it is part of. */
export interface ReceiptValues {
  id: string;
  organizationId: string;
  protectedActionId: string;
  kind: string;
  receiptObjectId: string;
  threadId: string;
  headObjectId: string;
  outcome: string;
  issuerKid: string;
  /** The bundle's bytes; `bundle_size` is their length. */
  bundle: string;
  bundleSha256: string;
  /** Left null (the evidence worker verifies later) unless given. */
  verifiedAtIssuance?: string;
}

/**
 * The one definition of a receipt row's insert, as SQL text for a statement that writes other
 * rows too (a decision, a RESULT), so that storing a receipt never costs a round trip of its
 * own. `from` follows the select list (e.g. `from finished`): the row is written once per row
 * it yields. Built when a module loads, never from a request's values: parameters carry those.
 */
export function receiptInsert(v: ReceiptValues, from = ""): string {
  return `insert into receipts (id, organization_id, protected_action_id, kind, receipt_object_id, thread_id, head_object_id,
                      workflow, outcome, issuer_kid, bundle, bundle_sha256, bundle_size, verified_at_issuance)
  select ${v.id}, ${v.organizationId}, ${v.protectedActionId}, ${v.kind}, ${v.receiptObjectId}, ${v.threadId}, ${v.headObjectId},
         '${workflowId}', ${v.outcome}, ${v.issuerKid}, ${v.bundle}::bytea, ${v.bundleSha256}, octet_length(${v.bundle}::bytea),
         ${v.verifiedAtIssuance ?? "null::boolean"}
  ${from}`;
}
