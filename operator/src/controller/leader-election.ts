// One active operator replica, through a coordination.k8s.io/v1 Lease and the algorithm of
// client-go's leaderelection: try to acquire or renew every retry period; a Lease held by someone
// else counts as held until leaseDuration has passed since *we* last saw it change (our own clock,
// never the holder's timestamps, so clock skew between nodes does not matter); writes carry the
// resourceVersion read, so of two candidates only one wins (the other gets 409 Conflict); a leader
// that cannot renew within renewDeadline stops leading; on shutdown the leader releases the Lease
// so a standby takes over at once instead of after the lease runs out.
import { fieldManager } from "../kube/custom-objects.js";
import { CoordinationV1Api, V1MicroTime, type KubeConfig, type V1Lease } from "@kubernetes/client-node";
import type { Logger } from "../log.js";
import { describeError } from "./controller.js";

export interface LeaderElectionOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  onStartedLeading: () => void | Promise<void>;
  /** Leadership lost (renewal failed past the deadline): stop all work; campaigning resumes once this resolves. */
  onStoppedLeading: () => void | Promise<void>;
  log: Logger;
  now?: () => number;
}

const statusOf = (error: unknown) => (error as { code?: number }).code;

export class LeaderElector {
  private readonly api: CoordinationV1Api;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly now: () => number;
  private observed: { holder: string; renewTime: string; resourceVersion: string } | undefined;
  private observedAt = 0;
  private leading = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private lastRenewal = 0;
  private contactAt = 0;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly options: LeaderElectionOptions) {
    this.api = options.kubeConfig.makeApiClient(CoordinationV1Api);
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    this.now = options.now ?? Date.now;
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /** When the apiserver last answered a Lease read (0: never): the readiness check's evidence. */
  get lastContact(): number {
    return this.contactAt;
  }

  start(): void {
    this.loop = this.run();
  }

  /** Stops campaigning; a leader releases the Lease. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.wake?.();
    await this.loop;
    if (this.leading) {
      this.leading = false;
      await this.release();
    }
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const ok = await this.tryAcquireOrRenew();
      if (ok) {
        this.lastRenewal = this.now();
        if (!this.leading) {
          this.leading = true;
          this.options.log.info(
            { lease: this.options.name, identity: this.options.identity },
            "became leader",
          );
          // Not awaited: starting the controllers (first lists) must not hold up the renewals.
          Promise.resolve(this.options.onStartedLeading()).catch((error) =>
            this.options.log.error({ error: describeError(error) }, "starting the controllers failed"),
          );
        }
      } else if (this.leading && this.now() - this.lastRenewal > this.renewDeadlineMs) {
        this.leading = false;
        this.options.log.error(
          { lease: this.options.name },
          "could not renew the leader Lease in time; stopping",
        );
        await this.options.onStoppedLeading();
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        this.timer = setTimeout(resolve, this.retryPeriodMs);
      });
    }
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const { namespace, name, identity } = this.options;
    const now = this.now();
    let lease: V1Lease | undefined;
    try {
      lease = await this.api.readNamespacedLease({ name, namespace });
      this.contactAt = this.now();
    } catch (error) {
      if (statusOf(error) === 404) this.contactAt = this.now();
      else {
        this.options.log.warn({ error: describeError(error) }, "reading the leader Lease failed");
        return false;
      }
    }
    const spec = {
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
      renewTime: new V1MicroTime(now),
      acquireTime: new V1MicroTime(now),
      leaseTransitions: 0,
    };
    if (!lease) {
      try {
        const created = await this.api.createNamespacedLease({
          namespace,
          fieldManager,
          body: { metadata: { name, namespace }, spec },
        });
        this.observe(created);
        return true;
      } catch (error) {
        if (statusOf(error) !== 409)
          this.options.log.warn({ error: describeError(error) }, "creating the leader Lease failed");
        return false;
      }
    }
    this.observe(lease);
    const holder = lease.spec?.holderIdentity ?? "";
    if (holder !== "" && holder !== identity && this.observedAt + this.leaseDurationMs > now) return false;
    const takingOver = holder !== identity;
    const body: V1Lease = {
      ...lease,
      spec: {
        ...spec,
        acquireTime: takingOver ? spec.acquireTime : (lease.spec?.acquireTime ?? spec.acquireTime),
        leaseTransitions: (lease.spec?.leaseTransitions ?? 0) + (takingOver ? 1 : 0),
      },
    };
    try {
      const updated = await this.api.replaceNamespacedLease({ name, namespace, body, fieldManager });
      this.observe(updated);
      return true;
    } catch (error) {
      if (statusOf(error) !== 409)
        this.options.log.warn({ error: describeError(error) }, "updating the leader Lease failed");
      return false;
    }
  }

  private observe(lease: V1Lease): void {
    const record = {
      holder: lease.spec?.holderIdentity ?? "",
      renewTime: String(lease.spec?.renewTime ?? ""),
      resourceVersion: lease.metadata?.resourceVersion ?? "",
    };
    if (
      !this.observed ||
      this.observed.holder !== record.holder ||
      this.observed.renewTime !== record.renewTime
    ) {
      this.observedAt = this.now();
    }
    this.observed = record;
  }

  private async release(): Promise<void> {
    const { namespace, name, identity } = this.options;
    try {
      const lease = await this.api.readNamespacedLease({ name, namespace });
      if (lease.spec?.holderIdentity !== identity) return;
      const now = new V1MicroTime(this.now());
      await this.api.replaceNamespacedLease({
        name,
        namespace,
        fieldManager,
        body: {
          ...lease,
          spec: {
            ...lease.spec,
            holderIdentity: "",
            leaseDurationSeconds: 1,
            renewTime: now,
            acquireTime: now,
          },
        },
      });
      this.options.log.info({ lease: name }, "released the leader Lease");
    } catch (error) {
      this.options.log.warn({ error: describeError(error) }, "releasing the leader Lease failed");
    }
  }
}
