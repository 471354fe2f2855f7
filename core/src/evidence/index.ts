/**
 * Signed evidence as the server side issues and reads it back: the receipt over a thread's path,
 * signed by the Gateway identity (SPEC 2.8), and the stored signed objects and identity logs a
 * receipt carries. Below both the decision pipeline and the protected action's transitions, which
 * issue receipts alike.
 */
export { issueStoredReceipt, type IssuedReceipt } from "./receipt.js";
export { storedObjects, storedIdentityLogs } from "./store.js";
