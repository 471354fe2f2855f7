/**
 * What the rollout routes take from their environment, injectable so tests
 * control time instead of sleeping (house rule: no timing assertions).
 */
export interface RolloutOptions {
  /** Wall clock for records and windows (default: the real time). */
  now?: () => Date;
  /** Milliseconds on a monotonic clock for the impact preview's budget (default performance.now). */
  clock?: () => number;
  /** The impact preview's time budget (SPEC 8.4: 1.5 s). */
  impactBudgetMs?: number;
}

export interface Rollout {
  now: () => Date;
  clock: () => number;
  impactBudgetMs: number;
}

export function rolloutOf(o: RolloutOptions | undefined): Rollout {
  return {
    now: o?.now ?? (() => new Date()),
    clock: o?.clock ?? (() => performance.now()),
    impactBudgetMs: o?.impactBudgetMs ?? 1500,
  };
}
