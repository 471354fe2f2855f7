import { GroupCommit } from "../store/group-commit.js";
import type { Queryable } from "../store/queryable.js";
import { recordDecision, type DecisionWrite, type RecordOutcome } from "./record.js";
import { batchable, batchKeys, MAX_BATCH, recordDecisions } from "./record-batch.js";

/**
 * The Gateway's decision writes, batched when they queue (record-batch.ts).
 * Every write is answered with the outcome recordDecision would give it; a
 * batch whose statement fails (an idempotency race, a lost connection) wrote
 * nothing and is written again one decision at a time.
 */
export class DecisionWriter {
  private readonly batches: GroupCommit<DecisionWrite, RecordOutcome>;

  constructor(
    private readonly db: Queryable,
    opts: { inFlight?: number; onBatch?: (size: number) => void } = {},
  ) {
    this.batches = new GroupCommit({
      one: (w) => recordDecision(db, w),
      many: (ws) => recordDecisions(db, ws),
      keys: batchKeys,
      // Concurrent batches take buckets and usage counts in one order.
      order: (w) => `${w.action.organizationId}\u0000${w.action.apiKeyId}`,
      max: MAX_BATCH,
      inFlight: opts.inFlight,
      onBatch: opts.onBatch,
    });
  }

  record(write: DecisionWrite): Promise<RecordOutcome> {
    return batchable(write) ? this.batches.write(write) : recordDecision(this.db, write);
  }
}
