// A watch that survives what the apiserver does. @kubernetes/client-node's informer lists, watches
// from the list's resourceVersion, relists on 410 Gone and resumes after its own 30 s request
// timeout, but on any other error (apiserver restarting, connection refused, 5xx) it emits `error`
// and stops for good. This wrapper restarts it with exponential backoff and jitter, keeps the
// resourceVersion it had (so a restart resumes the watch, or relists when that is too old), and
// hands every cached object to the handler again on each periodic resync.
import {
  makeInformer,
  type Informer,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  type ObjectCache,
} from "@kubernetes/client-node";
import { backoffDelay, type BackoffOptions } from "./backoff.js";

export type InformerEvent = "add" | "update" | "delete" | "resync";

export interface ResilientInformerOptions<T extends KubernetesObject> {
  kubeConfig: KubeConfig;
  /** Watch path, e.g. /apis/countersign.dev/v1alpha1/policies */
  path: string;
  list: () => Promise<KubernetesListObject<T>>;
  onEvent: (event: InformerEvent, object: T) => void;
  /** Every cached object is handed over again this often (0: never). */
  resyncMs: number;
  backoff?: Partial<BackoffOptions>;
  /** A successful list (initial, relist after 410, or after a restart). */
  onSynced?: (at: Date) => void;
  onError?: (error: unknown, retryInMs: number) => void;
  now?: () => Date;
}

export class ResilientInformer<T extends KubernetesObject> {
  private readonly informer: Informer<T> & ObjectCache<T>;
  private readonly backoff: BackoffOptions;
  private failures = 0;
  private lastErrorAt = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private resyncTimer: NodeJS.Timeout | undefined;
  private stopped = true;
  private syncedOnce!: Promise<void>;
  private resolveSynced!: () => void;

  constructor(private readonly options: ResilientInformerOptions<T>) {
    this.backoff = { baseMs: 1000, maxMs: 30_000, jitter: 0.5, ...options.backoff };
    this.syncedOnce = new Promise((resolve) => (this.resolveSynced = resolve));
    const now = options.now ?? (() => new Date());
    // The list function is ours, so we know when a list succeeded: that is the "last successful
    // sync" the metrics report, and it ends the failure streak.
    const list = async () => {
      const result = await options.list();
      this.failures = 0;
      options.onSynced?.(now());
      this.resolveSynced();
      return result;
    };
    this.informer = makeInformer<T>(options.kubeConfig, options.path, list);
    this.informer.on("add", (o) => options.onEvent("add", o));
    this.informer.on("update", (o) => options.onEvent("update", o));
    this.informer.on("delete", (o) => options.onEvent("delete", o));
    this.informer.on("error", (error) => this.restartLater(error));
  }

  /** Starts watching; resolves once the first list succeeded. */
  async start(): Promise<void> {
    this.stopped = false;
    this.begin();
    if (this.options.resyncMs > 0) {
      this.resyncTimer = setInterval(() => this.resync(), this.options.resyncMs);
      this.resyncTimer.unref();
    }
    await this.syncedOnce;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    clearInterval(this.resyncTimer);
    await this.informer.stop();
  }

  get(name: string, namespace?: string): T | undefined {
    return this.informer.get(name, namespace);
  }

  list(): readonly T[] {
    return this.informer.list();
  }

  resync(): void {
    for (const object of this.informer.list()) this.options.onEvent("resync", object);
  }

  private begin(): void {
    this.informer.start().catch((error) => this.restartLater(error));
  }

  private restartLater(error: unknown): void {
    if (this.stopped) return;
    // A watch that ran fine for a long while before failing starts over from the base delay.
    if (Date.now() - this.lastErrorAt > 2 * this.backoff.maxMs) this.failures = 0;
    this.lastErrorAt = Date.now();
    this.failures += 1;
    const delay = backoffDelay(this.failures, this.backoff);
    this.options.onError?.(error, delay);
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => {
      if (!this.stopped) this.begin();
    }, delay);
  }
}
