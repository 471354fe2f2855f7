/**
 * Wire SIGTERM (Kubernetes) and SIGINT (Ctrl-C) to one orderly stop. A second
 * signal while stopping exits at once, for the impatient operator.
 */
export function runUntilSignal(
  stop: (signal: NodeJS.Signals) => Promise<void>,
  log: (msg: string) => void,
): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      log(`${signal} again: exiting now`);
      process.exit(130);
    }
    stopping = true;
    log(`${signal}: stopping`);
    stop(signal).then(
      () => process.exit(0),
      (err: unknown) => {
        log(`stop failed: ${String(err)}`);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}
