import { performance } from "node:perf_hooks";
import type { Logger } from "@countersign/core/server";
import type { Pool } from "@countersign/core/store";
import {
  ATTEMPT_TIMEOUT_MS,
  deliveryBody,
  signatureHeader,
  WebhookMetrics,
} from "@countersign/core/webhooks";
import { oldestDue } from "./attempt-store.js";
import { claimAttempts, type ClaimedAttempt } from "./claim.js";
import { signingSecrets } from "./endpoint-secrets.js";
import { finishAttempt } from "./finish-attempt.js";
import type { WebhookOptions } from "./options.js";
import { sendAttempt } from "./send-attempt.js";

export interface DeliveryWorkerOptions extends WebhookOptions {
  pool: Pool;
  logger?: Logger;
  metrics?: WebhookMetrics;
  /** How often to look for due deliveries when idle. */
  pollMs?: number;
  /** How long a claim holds a delivery; longer than an attempt, so only a dead process loses one. */
  leaseMs?: number;
  /** Attempts this process runs at once. */
  capacity?: number;
  /** Per-attempt limit; SPEC 8.4 says 10 s, tests of slow receivers lower it. */
  attemptTimeoutMs?: number;
}

export const USER_AGENT = "Service-Webhooks/1.0";

/**
 * Sends webhook deliveries from inside an api process (docs/webhooks.md).
 * Several processes may run one each against the same database: attempts
 * are claimed in PostgreSQL (claim.ts), so no attempt is sent twice, and a
 * claim has a lease, so a process killed mid-attempt only delays it.
 */
export class DeliveryWorker {
  readonly metrics: WebhookMetrics;
  private readonly now: () => Date;
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private stopped = false;
  private started = false;
  private looping = false;
  private kicked = false;

  constructor(private readonly opts: DeliveryWorkerOptions) {
    this.now = opts.now ?? (() => new Date());
    this.metrics = opts.metrics ?? new WebhookMetrics();
  }

  /**
   * Look for due deliveries every pollMs until stop(), and at once whenever
   * an attempt ends (its endpoint and organization may take the next one).
   */
  start(): void {
    this.stopped = false;
    this.started = true;
    this.schedule(0);
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.loop(), ms);
  }

  private async loop(): Promise<void> {
    if (this.stopped) return;
    this.looping = true;
    this.kicked = false;
    try {
      await this.claimAndSend();
    } catch (err) {
      this.opts.logger?.warn({ err }, "webhook worker: claiming failed; retrying");
    } finally {
      this.looping = false;
    }
    if (!this.stopped) this.schedule(this.kicked ? 0 : (this.opts.pollMs ?? 1000));
  }

  /** An attempt ended: claim again now rather than at the next poll. */
  private kick(): void {
    if (!this.started || this.stopped) return;
    if (this.looping) this.kicked = true;
    else this.schedule(0);
  }

  /** Stop claiming and wait for the attempts in flight to finish (each ends within its timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.allSettled([...this.inFlight]);
  }

  /**
   * Claim what is due now and run it to the end: attempts, and again while
   * finishing some let others be claimed (the per-endpoint and
   * per-organization limits). Tests call this with their clock.
   */
  async runOnce(): Promise<void> {
    for (;;) {
      const claimed = await this.claimAndSend();
      if (claimed === 0 && this.inFlight.size === 0) return;
      if (this.inFlight.size > 0) await Promise.race([...this.inFlight]);
    }
  }

  /** Starts the attempts claimable now; returns how many. */
  private async claimAndSend(): Promise<number> {
    if (this.running) return 0;
    this.running = true;
    try {
      const now = this.now();
      const capacity = (this.opts.capacity ?? 16) - this.inFlight.size;
      const { claimed, interrupted, failed } = await claimAttempts(this.opts.pool, {
        now,
        leaseMs: this.opts.leaseMs ?? 30_000,
        max: capacity,
      });
      if (interrupted) this.metrics.attempts.inc({ outcome: "interrupted" }, interrupted);
      if (failed) this.metrics.deliveries.inc({ outcome: "failed" }, failed);
      for (const c of claimed) {
        const p = this.attempt(c)
          // Recording the outcome failed (database gone): the lease expires and the attempt is retried.
          .catch((err: unknown) =>
            this.opts.logger?.error({ err, delivery_id: c.deliveryId }, "webhook attempt not recorded"),
          )
          .finally(() => {
            this.inFlight.delete(p);
            this.kick();
          });
        this.inFlight.add(p);
      }
      await this.observeQueueAge(now);
      return claimed.length;
    } finally {
      this.running = false;
    }
  }

  private async attempt(c: ClaimedAttempt): Promise<void> {
    const body = deliveryBody(c.event);
    const started = performance.now();
    let result;
    try {
      // Signed at send time (SPEC 6.3), with the secrets valid at that time.
      const secrets = signingSecrets(this.opts.credentialKey, c.endpoint, this.now());
      const headers = {
        "content-type": "application/json",
        "user-agent": USER_AGENT,
        "service-event-id": c.event.id,
        "service-delivery-id": c.deliveryId,
        "service-signature": signatureHeader(secrets, this.now().getTime() / 1000, body),
      };
      result = await sendAttempt(
        { url: c.url, body, headers },
        {
          allowLoopback: this.opts.allowLoopbackUrls,
          resolve: this.opts.resolve,
          ca: this.opts.ca,
          timeoutMs: this.opts.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS,
        },
      );
    } catch (err) {
      this.opts.logger?.error({ err, delivery_id: c.deliveryId }, "webhook attempt failed unexpectedly");
      result = { ok: false, status: null, error: "INTERNAL_ERROR" };
    }
    const durationMs = performance.now() - started;
    this.metrics.attemptSeconds.observe(durationMs / 1000);
    this.metrics.attempts.inc({ outcome: result.ok ? "success" : "failure" });
    const outcome = await finishAttempt(this.opts.pool, c, result, { now: this.now(), durationMs });
    if (outcome === "delivered" || outcome === "failed") this.metrics.deliveries.inc({ outcome });
    this.opts.logger?.info(
      {
        delivery_id: c.deliveryId,
        event_id: c.event.id,
        attempt: c.number,
        status: result.status,
        error: result.error,
        duration_ms: Math.round(durationMs),
        outcome,
      },
      "webhook attempt",
    );
  }

  private async observeQueueAge(now: Date): Promise<void> {
    const oldest = await oldestDue(this.opts.pool, now);
    this.metrics.queueAgeSeconds.set(oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0);
  }
}
