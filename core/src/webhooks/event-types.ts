// The event types are wire names the dashboard shows too: declared once, in the protocol package.
export {
  subscribableEventTypes,
  TEST_EVENT_TYPE,
  type SubscribableEventType,
} from "@countersign/protocol/wire";
