import { GroupCommit } from "../../store/group-commit.js";
import type { Queryable } from "../../store/queryable.js";
import type { DecisionWrite, RecordOutcome } from "./decision-write.js";
import { recordDecision } from "./store.js";
import { batchable, batchKeys, MAX_BATCH, recordDecisions } from "./batch-store.js";

/**
 * The Gateway's decision writes, batched when they queue (batch-store.ts).
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
