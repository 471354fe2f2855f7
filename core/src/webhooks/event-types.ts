/** The event types are wire names, declared once with the wire schemas. */
export {
  subscribableEventTypes,
  TEST_EVENT_TYPE,
  type SubscribableEventType,
} from "@countersign/protocol/wire";
