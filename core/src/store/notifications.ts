import pg from "pg";

/**
 * One LISTEN connection per process, fanning PostgreSQL notifications out to
 * in-process waiters by payload. A decision taken through any replica (or the
 * Cloud API) sends `pg_notify(channel, id)`; every process holding a wait for
 * that id wakes. On a lost connection it reconnects and wakes every waiter so
 * each re-reads the state it waits for (nothing is missed, at worst a re-read).
 */
export class NotificationHub {
  private client: pg.Client | undefined;
  private readonly waiters = new Map<string, Set<() => void>>();
  private closed = false;
  private connecting: Promise<void> | undefined;

  constructor(
    private readonly url: string,
    readonly channel: string,
  ) {}

  async start(): Promise<void> {
    this.connecting ??= this.connect();
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, application_name: `countersign-listen-${this.channel}` });
    client.on("notification", (msg) => {
      if (msg.channel === this.channel && msg.payload) this.wake(msg.payload);
    });
    client.on("error", () => this.reconnect());
    client.on("end", () => this.reconnect());
    await client.connect();
    await client.query(`listen ${pg.escapeIdentifier(this.channel)}`);
    this.client = client;
  }

  private reconnect(): void {
    if (this.closed) return;
    this.client = undefined;
    this.connecting = undefined;
    for (const id of [...this.waiters.keys()]) this.wake(id);
    setTimeout(() => {
      if (!this.closed) this.start().catch(() => this.reconnect());
    }, 1000).unref();
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
    for (const id of [...this.waiters.keys()]) this.wake(id);
    await this.client?.end().catch(() => undefined);
  }
}
