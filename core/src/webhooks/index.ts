export { subscribableEventTypes, TEST_EVENT_TYPE, type SubscribableEventType } from "./event-types.js";
export { signatureHeader } from "./signature.js";
export {
  retryDelayMs,
  MAX_ATTEMPTS,
  ATTEMPT_TIMEOUT_MS,
  MAX_RESPONSE_BYTES,
  PREVIOUS_SECRET_MS,
} from "./schedule.js";
export { deliveryBody, type EventRow } from "./payload.js";
export { newSigningSecret } from "./secret.js";
export { WebhookMetrics } from "./metrics.js";
