/** What admins do to recorded actions (SPEC 3.1): cancellation, shared by the Cloud API route and the Gateway's states. */
export { cancelAction, CANCELLABLE_STATUSES, type CancellationInput, type Cancellation } from "./cancel.js";
