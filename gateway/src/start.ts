import { DecisionService, PolicyCache } from "@countersign/core/decision";
import { registerGatewayIdentity, type GatewayIdentity } from "@countersign/core/identities";
import { ACTION_CHANNEL, ResultWriter } from "@countersign/core/actions";
import { claimWithDecision, startRecovery } from "@countersign/core/execution";
import type { Plan } from "@countersign/core/plans";
import { listeningUrl, type Logger, type RunningServer } from "@countersign/core/server";
import { NotificationHub, type Pool } from "@countersign/core/store";
import { UpstreamEras, UpstreamSessions } from "@countersign/core/upstream";
import type { FastifyInstance } from "fastify";
import { authorizeRoutes } from "./authorize/route.js";
import type { GatewayContext } from "./context.js";
import { newInstanceId, startInstanceReports } from "./instance.js";
import { OrganizationQueue, type QueueOptions } from "./limits/organization-queue.js";
import { createGatewayMetrics } from "./metrics.js";
import { metricsRoute } from "./metrics-route.js";
import { mcpRoutes } from "./mcp/route.js";
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
  /** COUNTERSIGN_CREDENTIAL_KEY: decrypts MCP servers' stored authorization headers. */
  credentialKey?: Buffer | undefined;
  /** COUNTERSIGN_ALLOW_LOOPBACK_URLS: loopback upstreams (http allowed) for local runs and tests. */
  allowLoopbackUrls?: boolean;
  /** Extra CA certificates upstream certificates may chain to. */
  upstreamCa?: string[];
  /** COUNTERSIGN_DETAILED_EXPLANATIONS (SPEC 2.9): false records people's minimal explanation. Default true. */
  detailedExplanations?: boolean;
  /** SPEC 8.4's 30 s; tests shorten it. */
  upstreamTimeoutMs?: number;
  /** How often interrupted executions are looked for (ms). */
  recoveryEveryMs?: number;
  /** COUNTERSIGN_MCP_ALLOWED_ORIGINS: browser origins beyond loopback pages that may call /mcp. */
  mcpAllowedOrigins?: ReadonlySet<string>;
  /** Default true; false sends every /mcp request through the SDK's server (tests compare the answers). */
  directToolsCall?: boolean;
}

export interface RunningGateway extends RunningServer {
  identity: GatewayIdentity;
  instanceId: string;
}

/** The routes of a Gateway replica on one context: /v1/authorize, /mcp (when the context has what it needs) and /metrics. */
export function gatewayRoutes(ctx: GatewayContext) {
  return async (app: FastifyInstance) => {
    await app.register(authorizeRoutes, ctx);
    if (ctx.mcp) await app.register(mcpRoutes, { ...ctx, mcp: ctx.mcp });
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
  const stopReports = await startInstanceReports(opts.pool, instanceId, (err) =>
    opts.logger.warn({ err }, "instance report failed"),
  );
  const metrics = createGatewayMetrics();
  const policies = new PolicyCache();
  const decisions = new DecisionService({
    pool: opts.pool,
    identity,
    defaultPlan: opts.defaultPlan,
    detailedExplanations: opts.detailedExplanations,
    instanceId,
    hub,
    policies,
    onWaitsChanged: (n) => metrics.approvalWaits.set(n),
    onWriteBatch: (n) => metrics.writeBatches.observe({ write: "decision" }, n),
  });
  const sessions = new UpstreamSessions();
  if (opts.allowLoopbackUrls)
    opts.logger.warn(
      "COUNTERSIGN_ALLOW_LOOPBACK_URLS is on: upstream MCP servers on loopback (plain http) are reachable",
    );
  const ctx: GatewayContext = {
    pool: opts.pool,
    keyHashSecret: opts.keyHashSecret,
    metrics,
    queue: new OrganizationQueue({ perOrganization: 32, maxWaiting: 1000, maxWaitMs: 30_000, ...opts.queue }),
    decisions,
    mcp: {
      decisions,
      identity,
      policies,
      credentialKey: opts.credentialKey,
      rules: { allowLoopback: opts.allowLoopbackUrls ?? false },
      log: opts.logger,
      ca: opts.upstreamCa,
      upstreamTimeoutMs: opts.upstreamTimeoutMs,
      sessions,
      eras: new UpstreamEras(),
      results: new ResultWriter(opts.pool, {
        onBatch: (n) => metrics.writeBatches.observe({ write: "result" }, n),
      }),
      directToolsCall: opts.directToolsCall ?? true,
      allowedOrigins: opts.mcpAllowedOrigins ?? new Set(),
      claimWithDecision: claimWithDecision(identity, opts.credentialKey),
    },
  };
  // Executions whose replica died get their failed / INTERRUPTED receipt (core/src/execution/recover.ts).
  const recovery = startRecovery(
    opts.pool,
    identity,
    (err) => opts.logger.warn({ err }, "recovery pass failed"),
    opts.recoveryEveryMs,
  );
  const app = buildGatewayServer({ pool: opts.pool, logger: opts.logger, routes: gatewayRoutes(ctx) });
  await app.listen({
    host: opts.host,
    port: opts.port,
    listenTextResolver: (a) => `gateway listening on ${a}`,
  });
  return {
    app,
    url: listeningUrl(app, opts.host),
    identity,
    instanceId,
    stop: async () => {
      await app.lifecycle.drain(opts.shutdownGraceSeconds * 1000);
      await recovery.stop();
      stopReports();
      await sessions.closeAll();
      await hub.stop();
    },
  };
}
export type { RunningServer };
