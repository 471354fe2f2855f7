/**
 * What a decision writes, in one place: the value of the write (`decision-write.ts`) built from a
 * verdict (`write.ts`: the action's row `action-record.ts`, what the Gateway signs `signatures.ts`
 * and `steps.ts`, the events `events.ts` and their data `event-data.ts`), and its one statement
 * (`store.ts`, with the rows' SQL of `rows.ts`), many decisions in one statement when they queue
 * (`batch-store.ts`, `batcher.ts`).
 */
export type {
  ApprovalRecord,
  ClaimWithDecision,
  DecisionWrite,
  ObjectRecord,
  RecordOutcome,
} from "./decision-write.js";
export { decisionWrite, idsOf, type DecisionWriteInput } from "./write.js";
export { recordDecision } from "./store.js";
export { DecisionWriter } from "./batcher.js";
export { actionAuthorized } from "./event-data.js";
