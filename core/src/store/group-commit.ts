/**
 * Group commit in a process: writes that arrive while `inFlight` statements
 * are already running wait for the first of them to end and then go
 * together, in one statement and one commit. A lone write goes at once, alone,
 * so an idle process answers as fast as before; under load, the statement's
 * fixed costs (the executor's start, the round trip, the commit and its
 * flush) are paid once per batch instead of once per write.
 *
 * `many` must write all of its items or none (one statement): when it
 * throws, the items are written again one by one with `one`, each getting its
 * own answer or error. Two items sharing a `keys` entry never go in one batch
 * (the later one waits for the next), and a batch is sorted by `order` so
 * concurrent batches take their locks in one order.
 */
/**
 * How many statements a GroupCommit has in flight by default. Two measured
 * best for decision writes on a 2-core machine (`make bench`: about 1,250
 * decisions/s at 50 connections against 1,050 with four, 900 with eight and
 * 690 without batches): each statement in flight holds a PostgreSQL backend
 * busy, and more of them only split the same work into smaller batches.
 */
export const IN_FLIGHT = 2;

export interface GroupCommitOptions<T, R> {
  one: (item: T) => Promise<R>;
  many: (items: T[]) => Promise<R[]>;
  /** Items that may not share a batch with another carrying one of the same keys. */
  keys: (item: T) => readonly string[];
  order: (item: T) => string;
  /** The most items one statement writes. */
  max: number;
  /** How many statements may be in flight at once (default IN_FLIGHT). */
  inFlight?: number;
  /** Told the size of every batch sent (1: a write that went alone). */
  onBatch?: (size: number) => void;
}

interface Pending<T, R> {
  item: T;
  resolve: (r: R) => void;
  reject: (err: unknown) => void;
}

export class GroupCommit<T, R> {
  private queue: Array<Pending<T, R>> = [];
  private running = 0;

  constructor(private readonly opts: GroupCommitOptions<T, R>) {}

  write(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < (this.opts.inFlight ?? IN_FLIGHT) && this.queue.length > 0) {
      const batch = this.take();
      this.running++;
      void this.send(batch).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }

  /** The oldest waiting items that share no key, up to the bound, in lock order. */
  private take(): Array<Pending<T, R>> {
    const batch: Array<Pending<T, R>> = [];
    const rest: Array<Pending<T, R>> = [];
    const seen = new Set<string>();
    for (const p of this.queue) {
      const keys = this.opts.keys(p.item);
      if (batch.length < this.opts.max && !keys.some((k) => seen.has(k))) {
        batch.push(p);
        for (const k of keys) seen.add(k);
      } else rest.push(p);
    }
    this.queue = rest;
    const order = this.opts.order;
    return batch.sort((a, b) => {
      const x = order(a.item);
      const y = order(b.item);
      return x < y ? -1 : x > y ? 1 : 0;
    });
  }

  private async send(batch: Array<Pending<T, R>>): Promise<void> {
    this.opts.onBatch?.(batch.length);
    if (batch.length > 1) {
      let answers: R[] | null = null;
      try {
        answers = await this.opts.many(batch.map((p) => p.item));
      } catch {
        // Nothing of the batch was written: each item is written alone below.
      }
      if (answers) {
        batch.forEach((p, i) => p.resolve(answers[i]!));
        return;
      }
    }
    await Promise.all(
      batch.map((p) =>
        this.opts.one(p.item).then(
          (r) => p.resolve(r),
          (err: unknown) => p.reject(err),
        ),
      ),
    );
  }
}
