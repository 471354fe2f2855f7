// Exponential backoff with jitter, shared by informer restarts and rate-limited requeues.
// Jitter spreads the retries of many objects (or many replicas) so they do not hit the apiserver
// or the Cloud API in lockstep after an outage.

export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  /** Fraction of the delay drawn at random, 0 to 1 (0.5: between 50% and 100% of the delay). */
  jitter: number;
  random?: () => number;
}

/** Delay before retry number `attempt` (1 for the first retry). */
export function backoffDelay(attempt: number, options: BackoffOptions): number {
  const exponential = Math.min(options.maxMs, options.baseMs * 2 ** Math.max(0, attempt - 1));
  const random = options.random ?? Math.random;
  return Math.round(exponential * (1 - options.jitter * random()));
}
