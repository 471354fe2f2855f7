/**
 * An event as a write puts it in the outbox (table `events`, SPEC 6.1): the delivery worker turns
 * it into webhook deliveries later. Written in the same statement or transaction as the change it
 * reports, so an event is never sent for a change that was not recorded.
 */
export interface EventRecord {
  type: string;
  data: unknown;
}
