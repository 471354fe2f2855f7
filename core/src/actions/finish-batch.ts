import { GroupCommit } from "../store/group-commit.js";
import type { Queryable } from "../store/queryable.js";
import { finishMany } from "./finish-batch-store.js";
import { finish, type FinishedAction } from "./transitions-store.js";

/** The most RESULTs one statement writes. */
const MAX_BATCH = 32;

/**
 * One process's RESULT writes, batched when they queue (store/group-commit.ts): each answers
 * as `finish` would, a failed batch is written again one at a time.
 */
export class ResultWriter {
  private readonly batches: GroupCommit<FinishedAction, boolean>;

  constructor(db: Queryable, opts: { inFlight?: number; onBatch?: (size: number) => void } = {}) {
    this.batches = new GroupCommit({
      one: (f) => finish(db, f),
      many: (fs) => finishMany(db, fs),
      keys: (f) => [f.actionId],
      order: (f) => f.actionId,
      max: MAX_BATCH,
      inFlight: opts.inFlight,
      onBatch: opts.onBatch,
    });
  }

  finish(f: FinishedAction): Promise<boolean> {
    return this.batches.write(f);
  }
}
