import type { Pool } from "@countersign/core/store";
import { closeExpiredWindows } from "./windows.js";

/** How often every api process closes observe windows that ran out (DESIGN: background work in api processes). */
export const CLOSER_INTERVAL_MS = 30_000;

export interface ObserveCloser {
  stop(): Promise<void>;
}

/**
 * Closes expired observe windows of every organization in the background,
 * so lists, reports and the audit log show them ended even when nobody reads
 * them. The decision pipeline never waits for this: it compares `ends_at`
 * with the time itself. Several api processes share the work (skip locked).
 */
export function startObserveCloser(pool: Pool, log: (msg: string, err?: unknown) => void, intervalMs = CLOSER_INTERVAL_MS): ObserveCloser {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = (async () => {
      let again = false;
      try {
        again = (await closeExpiredWindows(pool, null, new Date())) > 0;
      } catch (err) {
        log("closing expired observe windows failed; retrying on the next pass", err);
      }
      if (!stopped) {
        timer = setTimeout(tick, again ? 0 : intervalMs);
        timer.unref?.();
      }
    })();
  };
  timer = setTimeout(tick, intervalMs);
  timer.unref?.();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
