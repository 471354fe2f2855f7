/**
 * Event types an endpoint can subscribe to (SPEC 6.1; the complete list is
 * ours, docs/webhooks.md). `webhook.test` is not among them: a test event
 * goes to the one endpoint it was sent to, whatever it subscribes to.
 */
export const subscribableEventTypes = [
  "action.authorized",
  "action.allowed",
  "action.denied",
  "approval.requested",
  "action.observe_override",
  "receipt.created",
  "policy.activated",
] as const;

export type SubscribableEventType = (typeof subscribableEventTypes)[number];

export const TEST_EVENT_TYPE = "webhook.test";
