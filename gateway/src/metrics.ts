import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/**
 * The Gateway's Prometheus metrics (DESIGN "Observability"), one registry per
 * server instance so several in one process (tests, `make run`) do not clash.
 */
export function createGatewayMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "countersign_gateway_" });
  return {
    registry,
    decisions: new Counter({
      name: "countersign_decisions_total",
      help: "Answers of the decision pipeline by mode, status and code",
      labelNames: ["mode", "status", "code"] as const,
      registers: [registry],
    }),
    decisionSeconds: new Histogram({
      name: "countersign_decision_duration_seconds",
      help: "Time from request to answer of decisions, without approval waits",
      labelNames: ["mode"] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    approvalWaits: new Gauge({
      name: "countersign_approval_waits",
      help: "Calls currently held waiting for a person's decision",
      registers: [registry],
    }),
    queueDepth: new Gauge({
      name: "countersign_queue_depth",
      help: "Calls waiting for a per-organization slot",
      registers: [registry],
    }),
    upstreamSeconds: new Histogram({
      name: "countersign_upstream_duration_seconds",
      help: "Time of the whole exchange with an upstream MCP server for one tools/call",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    upstreamCalls: new Counter({
      name: "countersign_upstream_calls_total",
      help: "Upstream tools/call exchanges by outcome (ok or the upstream code of SPEC 7.3)",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    admissions: new Counter({
      name: "countersign_gateway_admissions_total",
      help: "Calls past the key check by how they were admitted: read (one round trip), warm (none: decided from what this process read before, re-checked by the decision's write), stale (a warm decision whose write did not hold, decided again from a read)",
      labelNames: ["admission"] as const,
      registers: [registry],
    }),
    writeBatches: new Histogram({
      name: "countersign_gateway_write_batch_size",
      help: "Decisions (write=decision) or tools/call results (write=result) written by one statement and commit: writes that queue while two are in flight go together",
      labelNames: ["write"] as const,
      buckets: [1, 2, 4, 8, 16, 32],
      registers: [registry],
    }),
    refusedRequests: new Counter({
      name: "countersign_gateway_http_refusals_total",
      help: "Requests refused before any decision (401, 429, 503)",
      labelNames: ["reason"] as const,
      registers: [registry],
    }),
  };
}

export type GatewayMetrics = ReturnType<typeof createGatewayMetrics>;
