import { DecisionService, registerGatewayIdentity, ACTION_CHANNEL, type GatewayIdentity } from "@countersign/core/decision";
import type { Plan } from "@countersign/core/plans";
import { listeningUrl, type Logger, type RunningServer } from "@countersign/core/server";
import { NotificationHub, type Pool } from "@countersign/core/store";
import type { FastifyInstance } from "fastify";
import { authorizeRoutes } from "./authorize/route.js";
import type { GatewayContext } from "./context.js";
import { newInstanceId, startInstanceReports } from "./instance.js";
import { OrganizationQueue, type QueueOptions } from "./limits/organization-queue.js";
import { createGatewayMetrics } from "./metrics.js";
import { metricsRoute } from "./metrics-route.js";
import { buildGatewayServer } from "./server.js";

export interface GatewayOptions {
  pool: Pool;
  /** For the LISTEN connection that wakes approval waits. */
  databaseUrl: string;
  logger: Logger;
  host: string;
  port: number;
  shutdownGraceSeconds: number;
  keyHashSecret: Buffer;
  signingKey: Uint8Array;
  defaultPlan: Plan;
  queue?: Partial<QueueOptions>;
}

export interface RunningGateway extends RunningServer {
  identity: GatewayIdentity;
  instanceId: string;
}

/** The routes of a Gateway replica on one context: /v1/authorize and /metrics (and /mcp, issue 10). */
export function gatewayRoutes(ctx: GatewayContext) {
  return async (app: FastifyInstance) => {
    await app.register(authorizeRoutes, ctx);
    await app.register(metricsRoute, ctx);
  };
}

/**
 * A Gateway replica: registers (or adopts) the Gateway identity, starts the
 * notification listener and the instance reports, and serves until drained.
 */
export async function startGateway(opts: GatewayOptions): Promise<RunningGateway> {
  const identity = await registerGatewayIdentity(opts.pool, opts.signingKey);
  const instanceId = newInstanceId();
  const hub = new NotificationHub(opts.databaseUrl, ACTION_CHANNEL);
  await hub.start();
  const stopReports = await startInstanceReports(opts.pool, instanceId, (err) => opts.logger.warn({ err }, "instance report failed"));
  const metrics = createGatewayMetrics();
  const decisions = new DecisionService({
    pool: opts.pool,
    identity,
    defaultPlan: opts.defaultPlan,
    instanceId,
    hub,
    onWaitsChanged: (n) => metrics.approvalWaits.set(n),
  });
  const ctx: GatewayContext = {
    pool: opts.pool,
    keyHashSecret: opts.keyHashSecret,
    metrics,
    queue: new OrganizationQueue({ perOrganization: 32, maxWaiting: 1000, maxWaitMs: 30_000, ...opts.queue }),
    decisions,
  };
  const app = buildGatewayServer({ pool: opts.pool, logger: opts.logger, routes: gatewayRoutes(ctx) });
  await app.listen({ host: opts.host, port: opts.port, listenTextResolver: (a) => `gateway listening on ${a}` });
  return {
    app,
    url: listeningUrl(app, opts.host),
    identity,
    instanceId,
    stop: async () => {
      await app.lifecycle.drain(opts.shutdownGraceSeconds * 1000);
      stopReports();
      await hub.stop();
    },
  };
}
export type { RunningServer };
