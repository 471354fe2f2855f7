import type { Queryable } from "../store/queryable.js";
import { recordDecision, type DecisionWrite, type RecordOutcome } from "./record.js";
import { batchable, batchKeys, MAX_BATCH, recordDecisions } from "./record-batch.js";

interface Pending {
  write: DecisionWrite;
  resolve: (outcome: RecordOutcome) => void;
  reject: (err: unknown) => void;
}

/**
 * How many decision writes one process has in flight at once. A write that
 * arrives while they are all in flight waits for the first to end and goes
 * with the others that waited, in one statement and one commit (group commit
 * in the Gateway): a lone decision is written at once, as before, and under
 * load the statement's fixed costs (planning the executor, the round trip,
 * the commit) are paid once per batch instead of once per decision.
 */
const IN_FLIGHT = 2;

/**
 * The Gateway's decision writes, batched when they queue (record-batch.ts).
 * Every write is answered with the outcome recordDecision would give it; a
 * batch whose statement fails (an idempotency race, a limited plan's count
 * reaching the exact path, a lost connection) wrote nothing and is written
 * again one decision at a time, each with its own outcome or error.
 */
export class DecisionWriter {
  private queue: Pending[] = [];
  private inFlight = 0;

  constructor(
    private readonly db: Queryable,
    private readonly inFlightLimit = IN_FLIGHT,
  ) {}

  record(write: DecisionWrite): Promise<RecordOutcome> {
    if (!batchable(write)) return recordDecision(this.db, write);
    return new Promise((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.inFlightLimit && this.queue.length > 0) {
      const batch = this.take();
      this.inFlight++;
      void this.write(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  /** The next batch: the oldest writes that share no bucket or idempotency key, in lock order. */
  private take(): Pending[] {
    const batch: Pending[] = [];
    const rest: Pending[] = [];
    const seen = new Set<string>();
    for (const p of this.queue) {
      const keys = batchKeys(p.write);
      if (batch.length < MAX_BATCH && !keys.some((k) => seen.has(k))) {
        batch.push(p);
        for (const k of keys) seen.add(k);
      } else rest.push(p);
    }
    this.queue = rest;
    return batch.sort((a, b) => compare(lockOrder(a.write), lockOrder(b.write)));
  }

  private async write(batch: Pending[]): Promise<void> {
    if (batch.length > 1) {
      let outcomes: RecordOutcome[] | null = null;
      try {
        outcomes = await recordDecisions(
          this.db,
          batch.map((p) => p.write),
        );
      } catch {
        // Nothing of the batch was written: each decision is written alone below.
      }
      if (outcomes) {
        batch.forEach((p, i) => p.resolve(outcomes[i]!));
        return;
      }
    }
    await Promise.all(
      batch.map((p) =>
        recordDecision(this.db, p.write).then(
          (outcome) => p.resolve(outcome),
          (err: unknown) => p.reject(err),
        ),
      ),
    );
  }
}

// Concurrent batches take buckets and usage counts in one order, so two of
// them never wait on each other in a cycle.
const lockOrder = (w: DecisionWrite) => `${w.action.organizationId}\u0000${w.action.apiKeyId}`;
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
