/**
 * A background pass run again and again in one process until stopped: the
 * shape every api worker shares (closing superseded actions, closing observe
 * windows, verifying receipts, retention). Passes never overlap; a pass that
 * reports more work left runs again at once, otherwise the next waits
 * `intervalMs`. A failing pass is logged and retried on the next tick, so a
 * database outage slows a worker down without stopping it. Timers are
 * unref'd: a worker never keeps a process alive on its own.
 */
export interface PeriodicWorker {
  /** Stops scheduling and waits for a pass under way to end. */
  stop(): Promise<void>;
}

export interface PeriodicOptions {
  /** One pass; resolves true when work is left, so the next pass runs at once. */
  pass: () => Promise<boolean>;
  intervalMs: number;
  /** Delay before the first pass (defaults to `intervalMs`). */
  firstDelayMs?: number;
  /** What is logged when a pass throws ("… failed; retrying on the next pass"). */
  failure: string;
  log: (msg: string, err?: unknown) => void;
}

export function startPeriodic(opts: PeriodicOptions): PeriodicWorker {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const schedule = (ms: number) => {
    timer = setTimeout(tick, ms);
    timer.unref?.();
  };
  const tick = () => {
    running = (async () => {
      let again = false;
      try {
        again = await opts.pass();
      } catch (err) {
        opts.log(`${opts.failure}; retrying on the next pass`, err);
      }
      if (!stopped) schedule(again ? 0 : opts.intervalMs);
    })();
  };
  schedule(opts.firstDelayMs ?? opts.intervalMs);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
