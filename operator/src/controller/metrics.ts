// The operator's Prometheus metrics: reconciles by kind and result, queue depth, last successful
// sync of each watch, watch restarts, whether this replica leads and whether the Cloud API answers.
import { Counter, Gauge, Registry, collectDefaultMetrics } from "prom-client";

export class OperatorMetrics {
  readonly registry = new Registry();
  readonly reconciles = new Counter({
    name: "countersign_operator_reconciles_total",
    help: "Reconciles by kind and result (success, error, requeue).",
    labelNames: ["kind", "result"] as const,
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({
    name: "countersign_operator_queue_depth",
    help: "Keys waiting in the work queue of each kind.",
    labelNames: ["kind"] as const,
    registers: [this.registry],
  });
  readonly lastSync = new Gauge({
    name: "countersign_operator_last_successful_sync_timestamp_seconds",
    help: "Unix time of the last successful list of each kind's watch.",
    labelNames: ["kind"] as const,
    registers: [this.registry],
  });
  readonly watchRestarts = new Counter({
    name: "countersign_operator_watch_restarts_total",
    help: "Watches restarted after an error, by kind.",
    labelNames: ["kind"] as const,
    registers: [this.registry],
  });
  readonly leader = new Gauge({
    name: "countersign_operator_leader",
    help: "1 while this replica holds the leader Lease.",
    registers: [this.registry],
  });

  readonly cloudApiAvailable = new Gauge({
    name: "countersign_operator_cloud_api_available",
    help: "1 while the Cloud API answers its probe, 0 during an outage.",
    registers: [this.registry],
  });

  constructor(options: { defaultMetrics?: boolean } = {}) {
    this.leader.set(0);
    this.cloudApiAvailable.set(1);
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }
}
