/**
 * A start that fails part-way says why in one line a person can act on, and
 * what it had started is stopped, newest first, so no PostgreSQL server or
 * listener outlives the failed run.
 */

/** Stops, in reverse order of start, everything a run has started so far. */
export class StartedParts {
  private readonly stops: Array<() => Promise<void>> = [];

  add(stop: () => Promise<void>): void {
    this.stops.push(stop);
  }

  /** Every part is asked to stop even when an earlier one fails to; the first failure is rethrown. */
  async stopAll(): Promise<void> {
    let failure: unknown;
    while (this.stops.length) {
      await this.stops.pop()!().catch((err: unknown) => (failure ??= err));
    }
    if (failure !== undefined) throw failure;
  }
}

interface ListenError {
  code?: string;
  address?: string;
  port?: number;
}

/**
 * The failure as one line. A port another program holds names the setting
 * that chose it (`ports` maps setting names to the ports they gave).
 */
export function startupFailure(err: unknown, ports: Record<string, number>): string {
  const e = (err ?? {}) as ListenError;
  if ((e.code === "EADDRINUSE" || e.code === "EACCES") && typeof e.port === "number") {
    const settings = Object.keys(ports).filter((name) => ports[name] === e.port);
    const which = settings.length ? ` (${settings.join(", ")})` : "";
    const why =
      e.code === "EADDRINUSE"
        ? "is already in use by another program"
        : "may not be listened on by this user";
    return `${e.address ?? "the address"}:${e.port}${which} ${why}: stop that program or choose another port`;
  }
  return err instanceof Error ? err.message : String(err);
}
