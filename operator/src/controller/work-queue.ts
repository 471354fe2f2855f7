// A work queue of object keys ("namespace/name") with client-go's semantics: a key waits in the
// queue at most once however many events name it; a key being reconciled is not handed to a
// second worker, and an event during its reconcile queues it again once that one is done; failed
// keys come back after a per-key exponential delay (with jitter), successful ones reset it.
import { backoffDelay, type BackoffOptions } from "./backoff.js";

export interface WorkQueueOptions {
  backoff?: Partial<BackoffOptions>;
  onDepth?: (depth: number) => void;
}

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly waiters: Array<(key: string | undefined) => void> = [];
  private readonly backoff: BackoffOptions;
  private shuttingDown = false;

  constructor(private readonly options: WorkQueueOptions = {}) {
    this.backoff = { baseMs: 500, maxMs: 5 * 60_000, jitter: 0.5, ...options.backoff };
  }

  get depth(): number {
    return this.queue.length;
  }

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return; // queued again by done()
    const waiter = this.waiters.shift();
    if (waiter) {
      this.dirty.delete(key);
      this.processing.add(key);
      waiter(key);
      return;
    }
    this.queue.push(key);
    this.options.onDepth?.(this.queue.length);
  }

  /** Next key to reconcile; undefined once the queue shuts down. */
  get(): Promise<string | undefined> {
    const key = this.queue.shift();
    if (key !== undefined) {
      this.dirty.delete(key);
      this.processing.add(key);
      this.options.onDepth?.(this.queue.length);
      return Promise.resolve(key);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The reconcile of `key` finished (whatever its outcome). */
  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) {
      this.dirty.delete(key);
      this.add(key);
    }
  }

  /** Queue `key` again after its next backoff delay; returns the delay. */
  addRateLimited(key: string): number {
    const attempt = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, attempt);
    const delay = backoffDelay(attempt, this.backoff);
    this.addAfter(key, delay);
    return delay;
  }

  /**
   * Queue `key` now, its backoff forgotten and any delayed add dropped: what it waited for has
   * happened (the Cloud API is back), and the pass sets its next delay itself.
   */
  addNow(key: string): void {
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
    this.failures.delete(key);
    this.add(key);
  }

  addAfter(key: string, delayMs: number): void {
    if (this.shuttingDown) return;
    clearTimeout(this.timers.get(key));
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.timers.set(key, timer);
  }

  /** The key reconciled successfully: its next failure starts from the base delay again. */
  forget(key: string): void {
    this.failures.delete(key);
  }

  failuresOf(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
  }
}
