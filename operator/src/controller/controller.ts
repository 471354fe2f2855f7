// One controller per kind: a resilient informer feeds object keys into a work queue, and workers
// reconcile them one key at a time. A reconcile that throws is retried with per-key backoff; one
// that asks for it is looked at again after a delay (e.g. to follow a rollout).
import type { KubernetesObject } from "@kubernetes/client-node";
import type { Logger } from "../log.js";
import { ResilientInformer, type InformerEvent, type ResilientInformerOptions } from "./informer.js";
import type { OperatorMetrics } from "./metrics.js";
import { WorkQueue } from "./work-queue.js";

export interface ReconcileResult {
  /** Look at the object again after this many milliseconds even without a change. */
  requeueAfterMs?: number;
}

export interface Reconciler<T extends KubernetesObject> {
  kind: string;
  /** `object` is the cached state, undefined once it is gone from the apiserver. */
  reconcile(key: { namespace: string; name: string }, object: T | undefined): Promise<ReconcileResult | void>;
}

export interface ControllerOptions<T extends KubernetesObject> {
  reconciler: Reconciler<T>;
  informer: Omit<ResilientInformerOptions<T>, "onEvent" | "onSynced" | "onError">;
  metrics: OperatorMetrics;
  log: Logger;
  workers?: number;
  queue?: WorkQueue;
  /**
   * Reads the object as the apiserver has it now (undefined once gone); without it, the informer's
   * cache. A resync can run right after our own status write, before that write's watch event has
   * reached the cache: acting on the older status would repeat a Cloud API write that cannot be
   * compared afterwards (a credential sent again, a key or secret rotated twice).
   */
  read?: (key: { namespace: string; name: string }) => Promise<T | undefined>;
  /**
   * Writes why a pass failed into the object's status (a throw is otherwise only a log line and
   * a retry). Its own failure is logged, never retried on its own.
   */
  reportFailure?: (object: T, error: unknown) => Promise<void>;
}

export type ObjectListener<T> = (event: InformerEvent, object: T) => void;

export function objectKey(object: KubernetesObject): string {
  return `${object.metadata?.namespace ?? ""}/${object.metadata?.name ?? ""}`;
}

export class Controller<T extends KubernetesObject> {
  readonly queue: WorkQueue;
  readonly informer: ResilientInformer<T>;
  private running: Promise<void>[] = [];
  private readonly listeners: ObjectListener<T>[] = [];

  constructor(private readonly options: ControllerOptions<T>) {
    const { kind } = options.reconciler;
    const { metrics, log } = options;
    this.queue =
      options.queue ?? new WorkQueue({ onDepth: (depth) => metrics.queueDepth.set({ kind }, depth) });
    this.informer = new ResilientInformer<T>({
      ...options.informer,
      onEvent: (event, object) => {
        this.queue.add(objectKey(object));
        for (const listener of this.listeners) listener(event, object);
      },
      onSynced: (at) => metrics.lastSync.set({ kind }, at.getTime() / 1000),
      onError: (error, retryInMs) => {
        metrics.watchRestarts.inc({ kind });
        log.warn({ kind, retryInMs, error: describeError(error) }, "watch failed; restarting");
      },
    });
  }

  /** Called on every event of this kind (other kinds' controllers requeue their dependents). */
  onObject(listener: ObjectListener<T>): void {
    this.listeners.push(listener);
  }

  /** Every cached object is reconciled now, whatever backoff or delay it was waiting out. */
  reconcileAllNow(): void {
    for (const object of this.informer.list()) this.queue.addNow(objectKey(object));
  }

  /** The cached objects of this kind. */
  cached(): readonly T[] {
    return this.informer.list();
  }

  async start(): Promise<void> {
    await this.informer.start();
    const workers = this.options.workers ?? 2;
    for (let i = 0; i < workers; i++) this.running.push(this.work());
  }

  async stop(): Promise<void> {
    this.queue.shutDown();
    await this.informer.stop();
    await Promise.all(this.running);
  }

  private async work(): Promise<void> {
    const { reconciler, metrics, log } = this.options;
    const kind = reconciler.kind;
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      const [namespace = "", name = ""] = key.split("/");
      let object: T | undefined;
      try {
        object = this.options.read
          ? await this.options.read({ namespace, name })
          : this.informer.get(name, namespace || undefined);
        const result = await reconciler.reconcile({ namespace, name }, object);
        this.queue.forget(key);
        if (result?.requeueAfterMs !== undefined) {
          metrics.reconciles.inc({ kind, result: "requeue" });
          this.queue.addAfter(key, result.requeueAfterMs);
        } else {
          metrics.reconciles.inc({ kind, result: "success" });
        }
      } catch (error) {
        metrics.reconciles.inc({ kind, result: "error" });
        const retryInMs = this.queue.addRateLimited(key);
        log.warn({ kind, key, retryInMs, error: describeError(error) }, "reconcile failed; retrying");
        if (object && this.options.reportFailure)
          await this.options
            .reportFailure(object, error)
            .catch((e: unknown) =>
              log.warn({ kind, key, error: describeError(e) }, "could not write the failure to status"),
            );
      } finally {
        this.queue.done(key);
      }
    }
  }
}

/** An error as a line for the log: never a request body or header (they may hold secrets). */
export function describeError(error: unknown): string {
  if (error && typeof error === "object") {
    const e = error as { code?: unknown; statusCode?: unknown; message?: unknown; name?: unknown };
    const status = e.code ?? e.statusCode;
    const message =
      typeof e.message === "string" ? e.message.split("\n")[0]!.slice(0, 300) : String(e.name ?? "error");
    return status !== undefined ? `${String(status)} ${message}` : message;
  }
  return String(error);
}
