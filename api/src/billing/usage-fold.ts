import { foldCrowdedUsageShards } from "@countersign/core/plans";
import type { Pool } from "@countersign/core/store";
import { startPeriodic, type PeriodicWorker } from "@countersign/core/workers";

/** How often every api process looks for organizations whose monthly count is spread over many shard rows. */
export const USAGE_FOLD_INTERVAL_MS = 60_000;

export type UsageFold = PeriodicWorker;

/**
 * Keeps each organization's monthly count in few rows (core/src/plans/usage-shards-store.ts):
 * every limited plan's decision sums them. Several api processes may fold the same
 * organization at once; each fold is one statement, so they only take turns.
 */
export function startUsageFold(
  pool: Pool,
  log: (msg: string, err?: unknown) => void,
  intervalMs = USAGE_FOLD_INTERVAL_MS,
): UsageFold {
  return startPeriodic({
    pass: async () => (await foldCrowdedUsageShards(pool)).more,
    intervalMs,
    failure: "folding monthly usage counts failed",
    log,
  });
}
