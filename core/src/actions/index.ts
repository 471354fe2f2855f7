/**
 * The protected action (SPEC 2.6), in one place: its ten states, the record a decision writes
 * and the view every answer is built from, every change of its state after the decision (each a
 * guarded statement), the one definition of a receipt row, and the wake-up of waits. Nothing
 * else writes `protected_actions` after the decision: ESLint refuses `update protected_actions` in any
 * other production file (eslint.config.js).
 */
export {
  actionStatuses,
  CANCELLABLE_STATUSES,
  OPEN_STATUSES,
  type ActionStatus,
  type DecidedStatus,
} from "./status.js";
export { type ActionRecord } from "./record.js";
export { readActionView, type ActionView } from "./view-store.js";
export {
  receiptCreated,
  receiptInsert,
  receiptRecord,
  type ReceiptRecord,
  type ReceiptValues,
} from "./receipts.js";
export { insertReceipt } from "./receipt-store.js";
export { holdsIdempotencyKey } from "./reopened-keys.js";
export {
  approve,
  authorizeApproved,
  deny,
  expire,
  expireLapsedApproval,
  finish,
  markCancelled,
  markExecuting,
  reject,
  type FinishedAction,
  type GrantedReceipt,
} from "./transitions-store.js";
/** RESULT writes of many executions at once (the Gateway's group commit). */
export { ResultWriter } from "./finish-batch.js";
export { finishMany } from "./finish-batch-store.js";
export { lockOpenActions, supersedeCovered, type Coverage, type SupersedeScope } from "./supersede-store.js";
export { markEvidenceDeleted } from "./retention-store.js";
export { ACTION_CHANNEL, wakeWaiters } from "./wake-store.js";
/** What admins do to recorded actions (SPEC 3.1): cancellation, shared by the Cloud API route and the Gateway's states. */
export { cancelAction, type CancellationInput, type Cancellation } from "./cancel.js";
