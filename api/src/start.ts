import { listeningUrl, type Logger, type RunningServer } from "@countersign/core/server";
import type { Pool } from "@countersign/core/store";
import type { CloudApiOptions } from "./context.js";
import { buildApiServer } from "./server.js";
import { DeliveryWorker } from "./webhooks/delivery-worker.js";
import { startSupersedeWorker } from "./policies/supersede-worker.js";
import { startObserveCloser } from "./observe/closer.js";
import { startEvidenceWorker } from "./evidence/worker.js";
import { startUsageFold } from "./billing/usage-fold.js";
import { startApprovalNotices } from "./approval-notices/worker.js";

export async function startApi(opts: {
  pool: Pool;
  logger: Logger;
  host: string;
  port: number;
  shutdownGraceSeconds: number;
  /** People and access (accounts, organizations, keys, audit); see buildApiServer. */
  cloud?: CloudApiOptions;
  /** COUNTERSIGN_METRICS: serve GET /metrics (the webhook worker's metrics). */
  metricsEnabled?: boolean;
  /** The dashboard's build folder, served on the api's origin (see buildApiServer). */
  dashboardDir?: string;
  /** COUNTERSIGN_GATEWAY_URL, shown in the dashboard (see buildApiServer). */
  gatewayUrl?: string;
}): Promise<RunningServer> {
  const app = buildApiServer({
    pool: opts.pool,
    logger: opts.logger,
    cloud: opts.cloud,
    dashboardDir: opts.dashboardDir,
    gatewayUrl: opts.gatewayUrl,
  });
  // Webhook deliveries are sent from every api process (docs/webhooks.md).
  const worker = opts.cloud?.webhooks
    ? new DeliveryWorker({ ...opts.cloud.webhooks, pool: opts.pool, logger: opts.logger })
    : undefined;
  if (worker && opts.metricsEnabled !== false && !app.hasRoute({ method: "GET", url: "/metrics" })) {
    app.get("/metrics", async (_request, reply) =>
      reply.type(worker.metrics.registry.contentType).send(await worker.metrics.registry.metrics()),
    );
  }
  await app.listen({ host: opts.host, port: opts.port, listenTextResolver: (a) => `api listening on ${a}` });
  // Closes actions covered by a rollback or emergency stop that decisions in flight recorded just after it (SPEC 3.6).
  const supersedeWorker = startSupersedeWorker(opts.pool, (msg, err) => opts.logger.error({ err }, msg));
  // Ends observe windows that ran out (SPEC 3.9), in every api process.
  const observeCloser = startObserveCloser(opts.pool, (msg, err) => opts.logger.error({ err }, msg));
  // Keeps each organization's monthly count in few rows (core/src/plans/usage-shards-store.ts), in every api process.
  const usageFold = startUsageFold(opts.pool, (msg, err) => opts.logger.error({ err }, msg));
  // Verifies new receipts and applies data retention (docs/retention.md), in every api process.
  const evidenceWorker = opts.cloud
    ? startEvidenceWorker({
        pool: opts.pool,
        defaultPlan: opts.cloud.defaultPlan,
        now: opts.cloud.evidence?.now,
        log: (msg, err) => opts.logger.error({ err }, msg),
      })
    : undefined;
  // Mails the people who may decide each new approval request (docs/dashboard.md), in every api process.
  const approvalNotices = opts.cloud
    ? startApprovalNotices({
        pool: opts.pool,
        mailer: opts.cloud.mailer,
        dashboardOrigin: opts.cloud.dashboardOrigin,
        log: opts.logger,
      })
    : undefined;
  worker?.start();
  return {
    app,
    url: listeningUrl(app, opts.host),
    stop: async () => {
      await supersedeWorker.stop();
      await observeCloser.stop();
      await usageFold.stop();
      await evidenceWorker?.stop();
      await approvalNotices?.stop();
      // The worker stops claiming at once; attempts in flight end within their 10 s.
      await Promise.all([app.lifecycle.drain(opts.shutdownGraceSeconds * 1000), worker?.stop()]);
      opts.cloud?.mailer.close?.();
    },
  };
}

export type { RunningServer };
