import pg from "pg";

/**
 * One LISTEN connection per process, fanning PostgreSQL notifications out to
 * in-process waiters by payload. A decision taken through any replica (or the
 * Cloud API) sends `pg_notify(channel, id)`; every process holding a wait for
 * that id wakes. On a lost connection it wakes every waiter, reconnects, and
 * wakes every waiter again once it listens again, so each re-reads the state
 * it waits for (nothing is missed, at worst a re-read).
 */
export class NotificationHub {
  private client: pg.Client | undefined;
  private readonly waiters = new Map<string, Set<() => void>>();
  private closed = false;
  private connecting: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private everConnected = false;

  constructor(
    private readonly url: string,
    readonly channel: string,
  ) {}

  async start(): Promise<void> {
    if (this.client) return;
    this.connecting ??= this.connect().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.url,
      application_name: `countersign-listen-${this.channel}`,
    });
    client.on("notification", (msg) => {
      if (msg.channel === this.channel && msg.payload) this.wake(msg.payload);
    });
    // Only the connection in use counts: a failed attempt's events, or a lost one's 'end'
    // after its 'error', must not drop the connection that replaced it.
    client.on("error", () => this.lost(client));
    client.on("end", () => this.lost(client));
    try {
      await client.connect();
      await client.query(`listen ${pg.escapeIdentifier(this.channel)}`);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    // Notifications sent while nobody listened are lost: every wait re-reads its state.
    if (this.everConnected) this.wakeAll();
    this.everConnected = true;
  }

  private lost(client: pg.Client): void {
    if (client !== this.client) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    this.wakeAll();
    this.reconnectSoon();
  }

  /** One retry at a time, every second, until the connection is back or the hub stops. */
  private reconnectSoon(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (!this.closed) this.start().catch(() => this.reconnectSoon());
    }, 1000);
    this.retry.unref();
  }

  private wakeAll(): void {
    for (const id of [...this.waiters.keys()]) this.wake(id);
  }

  private wake(id: string): void {
    const set = this.waiters.get(id);
    if (!set) return;
    this.waiters.delete(id);
    for (const fn of set) fn();
  }

  /** Resolves true when `id` is notified, false when `ms` pass first. */
  wait(id: string, ms: number, signal?: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      let set = this.waiters.get(id);
      if (!set) this.waiters.set(id, (set = new Set()));
      const done = (notified: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        set.delete(wakeUp);
        if (set.size === 0 && this.waiters.get(id) === set) this.waiters.delete(id);
        resolve(notified);
      };
      const wakeUp = () => done(true);
      const onAbort = () => done(false);
      const timer = setTimeout(() => done(false), ms);
      signal?.addEventListener("abort", onAbort, { once: true });
      set.add(wakeUp);
    });
  }

  get waiting(): number {
    let n = 0;
    for (const s of this.waiters.values()) n += s.size;
    return n;
  }

  async stop(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.wakeAll();
    await this.connecting?.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
