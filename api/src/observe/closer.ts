import type { Pool } from "@countersign/core/store";
import { startPeriodic, type PeriodicWorker } from "@countersign/core/workers";
import { closeExpiredWindows } from "./windows.js";

/** How often every api process closes observe windows that ran out (DESIGN: background work in api processes). */
export const CLOSER_INTERVAL_MS = 30_000;

export type ObserveCloser = PeriodicWorker;

/**
 * Closes expired observe windows of every organization in the background,
 * so lists, reports and the audit log show them ended even when nobody reads
 * them. The decision pipeline never waits for this: it compares `ends_at`
 * with the time itself. Several api processes share the work (skip locked).
 */
export function startObserveCloser(
  pool: Pool,
  log: (msg: string, err?: unknown) => void,
  intervalMs = CLOSER_INTERVAL_MS,
): ObserveCloser {
  return startPeriodic({
    pass: async () => (await closeExpiredWindows(pool, null, new Date())) > 0,
    intervalMs,
    failure: "closing expired observe windows failed",
    log,
  });
}
