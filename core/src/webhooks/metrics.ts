import { Counter, Gauge, Histogram, Registry } from "prom-client";

/**
 * Delivery metrics (docs/webhooks.md): attempts and deliveries by outcome,
 * attempt latency, and the age of the oldest due delivery.
 */
export class WebhookMetrics {
  readonly attempts: Counter<"outcome">;
  readonly deliveries: Counter<"outcome">;
  readonly attemptSeconds: Histogram;
  readonly queueAgeSeconds: Gauge;

  constructor(readonly registry: Registry = new Registry()) {
    this.attempts = new Counter({
      name: "countersign_webhook_attempts_total",
      help: "Delivery attempts by outcome: success, failure (non-2xx, timeout, connection, refused address), interrupted",
      labelNames: ["outcome"],
      registers: [registry],
    });
    this.deliveries = new Counter({
      name: "countersign_webhook_deliveries_total",
      help: "Deliveries that reached a final state in this process: delivered or failed",
      labelNames: ["outcome"],
      registers: [registry],
    });
    this.attemptSeconds = new Histogram({
      name: "countersign_webhook_attempt_duration_seconds",
      help: "Duration of delivery attempts, from connecting to the end of the answer",
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
    this.queueAgeSeconds = new Gauge({
      name: "countersign_webhook_queue_age_seconds",
      help: "How long the oldest due, unclaimed delivery of an enabled endpoint has waited (0 when none)",
      registers: [registry],
    });
  }
}
