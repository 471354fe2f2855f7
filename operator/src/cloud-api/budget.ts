// One request budget for the whole operator: every reconciler's Cloud API requests take a token
// from the same bucket, so a restart over hundreds of objects, or a recovery that requeues them
// all, is spread out instead of bursting into the Cloud API's limit (SPEC 8.1: 600 requests per
// minute per credential, counted in a window that starts at the credential's first request).
// Sized so that any 60 s holds at most burst + 60 × perSecond = 60 + 480 = 540 requests, and the
// bucket starts empty: a replica that just took over (or restarted) may share the Cloud API's
// window with its predecessor's last requests, which only the empty start keeps under 600.
// A `Retry-After` (429, 503) pauses the whole budget, not only the request that got it.

export interface RequestBudgetOptions {
  /** Tokens added per second. */
  perSecond: number;
  /** Most tokens held at once. */
  burst: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export const defaultBudget = { perSecond: 8, burst: 60 } as const;

export class RequestBudget {
  private tokens = 0;
  private last: number;
  private pausedUntil = 0;
  /** Requests take their turn in order: one waiter at a time looks at the bucket. */
  private tail: Promise<void> = Promise.resolve();
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: RequestBudgetOptions = defaultBudget) {
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.last = this.now();
  }

  /** Resolves when the next request may be sent (one token taken). */
  take(): Promise<void> {
    const turn = this.tail.then(() => this.waitForToken());
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  /** The Cloud API asked to wait (`Retry-After`): no request of any reconciler goes out before then. */
  pauseFor(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + ms);
  }

  private refill(): void {
    const now = this.now();
    this.tokens = Math.min(
      this.options.burst,
      this.tokens + ((now - this.last) / 1000) * this.options.perSecond,
    );
    this.last = now;
  }

  private async waitForToken(): Promise<void> {
    for (;;) {
      this.refill();
      const paused = this.pausedUntil - this.now();
      const missing = this.tokens >= 1 ? 0 : ((1 - this.tokens) / this.options.perSecond) * 1000;
      const wait = Math.max(paused, missing);
      if (wait <= 0) break;
      await this.sleep(Math.ceil(wait));
    }
    this.tokens -= 1;
  }
}
