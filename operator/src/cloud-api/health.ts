// Whether the Cloud API answers, as one fact the whole operator shares, decided by a probe that
// asks {apiUrl}/readyz every `probeIntervalMs` (outside /api/v1, so it costs nothing of the
// request budget) and at once when a request got no answer. A failed probe is confirmed by a
// second one a second later, so one lost connection does not count as an outage. Listeners hear
// each change: the operator then reconciles every resource at once, so all of them say
// CloudAPIUnavailable within one probe interval, even those no one edits, and clear as soon as it
// answers again, not after their retry backoff. While it is down, requests fail at once with the
// cause the probe saw, instead of each waiting for its own timeout.

export type HealthListener = (available: boolean) => void;

export interface CloudApiHealthOptions {
  baseUrl: string;
  probeIntervalMs?: number;
  timeoutMs?: number;
}

export const defaultProbeIntervalMs = 5_000;

export class CloudApiHealth {
  private down: unknown;
  private readonly listeners: HealthListener[] = [];
  private timer: NodeJS.Timeout | undefined;
  private inFlight = false;

  constructor(private readonly options: CloudApiHealthOptions) {}

  /** The error of the last failed attempt while the Cloud API is down; undefined while it answers. */
  get outage(): unknown {
    return this.down;
  }

  /** Whether the probe runs (only then may requests fail at once during an outage). */
  get probing(): boolean {
    return this.timer !== undefined;
  }

  onChange(listener: HealthListener): void {
    this.listeners.push(listener);
  }

  /** A request got no answer (or 502-504): probe now rather than at the next interval. */
  suspect(): void {
    if (this.probing && this.down === undefined) void this.probe();
  }

  /** The probe's finding: an answer (`undefined`) or none (its error). */
  private report(failure: unknown): void {
    const wasDown = this.down !== undefined;
    this.down = failure;
    const isDown = failure !== undefined;
    if (wasDown !== isDown) for (const listener of this.listeners) listener(!isDown);
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.probe(), this.options.probeIntervalMs ?? defaultProbeIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * Any HTTP answer but 502-504 means the Cloud API is there (an ingress that routes only
   * /api/v1 answers 404 here, which still proves the way is open); 503 is a Cloud API that cannot
   * serve (its database away, or draining).
   */
  async probe(): Promise<void> {
    if (this.inFlight) return;
    this.inFlight = true;
    try {
      let failure = await this.ask();
      // Up until now: one failure may be one lost connection; a second, a second later, is an outage.
      if (failure !== undefined && this.down === undefined) {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        failure = await this.ask();
      }
      // Stopped meanwhile (leadership lost): nothing is decided any more.
      if (this.timer) this.report(failure);
    } finally {
      this.inFlight = false;
    }
  }

  private async ask(): Promise<unknown> {
    try {
      const res = await fetch(new URL("/readyz", this.options.baseUrl), {
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 5_000),
      });
      await res.arrayBuffer();
      return res.status >= 502 && res.status <= 504 ? new ProbeRefused(res.status) : undefined;
    } catch (error) {
      return error;
    }
  }
}

/** The probe got an answer saying the Cloud API cannot serve now. */
export class ProbeRefused extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
    this.name = `HTTP ${status}`;
  }
}
