// One operator process: campaigns for the leader Lease, and while leading runs one controller per
// kind that has a reconciler. /healthz and /metrics are served whether or not it leads, so a
// standby replica is healthy too.
import type { KubeConfig, KubernetesObject } from "@kubernetes/client-node";
import type { CloudApi } from "./cloud-api/index.js";
import { Controller } from "./controller/controller.js";
import { startHealthServer, type HealthServer } from "./controller/health-server.js";
import { LeaderElector } from "./controller/leader-election.js";
import { OperatorMetrics } from "./controller/metrics.js";
import { EventRecorder } from "./kube/events.js";
import type { Logger } from "./log.js";
import { organizationObjects, organizationReconciler } from "./reconcilers/organization.js";
import { organizationOfNamespace } from "./reconcilers/organization-of.js";
import { mcpServerObjects, mcpServerReconciler } from "./reconcilers/mcp-server.js";
import { policyObjects, policyReconciler } from "./reconcilers/policy.js";
import { toolObjects, toolReconciler } from "./reconcilers/tool.js";
import { webhookEndpointObjects, webhookEndpointReconciler } from "./reconcilers/webhook-endpoint.js";

export interface OperatorOptions {
  kubeConfig: KubeConfig;
  cloud: CloudApi;
  log: Logger;
  identity: string;
  leaseNamespace: string;
  leaseName: string;
  watchNamespace?: string;
  resyncMs: number;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  health?: { port: number; host?: string };
}

export interface RunningOperator {
  metrics: OperatorMetrics;
  health?: HealthServer;
  elector: LeaderElector;
  stop(): Promise<void>;
}

export async function startOperator(options: OperatorOptions): Promise<RunningOperator> {
  const { kubeConfig, log } = options;
  const metrics = new OperatorMetrics();
  const events = new EventRecorder(kubeConfig, log);
  const controllers: Controller<KubernetesObject>[] = [];

  function makeControllers() {
    const organizations = organizationObjects(kubeConfig, options.watchNamespace);
    controllers.push(
      new Controller({
        reconciler: organizationReconciler({
          kubeConfig,
          cloud: options.cloud,
          events,
          objects: organizations,
        }),
        informer: {
          kubeConfig,
          path: organizations.watchPath,
          list: () => organizations.list(),
          resyncMs: options.resyncMs,
        },
        metrics,
        log,
      }) as unknown as Controller<KubernetesObject>,
    );
    const servers = mcpServerObjects(kubeConfig, options.watchNamespace);
    controllers.push(
      new Controller({
        reconciler: mcpServerReconciler({
          kubeConfig,
          cloud: options.cloud,
          events,
          objects: servers,
          organizationOf: organizationOfNamespace(kubeConfig),
        }),
        informer: {
          kubeConfig,
          path: servers.watchPath,
          list: () => servers.list(),
          resyncMs: options.resyncMs,
        },
        metrics,
        log,
      }) as unknown as Controller<KubernetesObject>,
    );
    const tools = toolObjects(kubeConfig, options.watchNamespace);
    const serverReader = mcpServerObjects(kubeConfig);
    controllers.push(
      new Controller({
        reconciler: toolReconciler({
          kubeConfig,
          cloud: options.cloud,
          events,
          objects: tools,
          servers: serverReader,
          organizationOf: organizationOfNamespace(kubeConfig),
        }),
        informer: { kubeConfig, path: tools.watchPath, list: () => tools.list(), resyncMs: options.resyncMs },
        metrics,
        log,
      }) as unknown as Controller<KubernetesObject>,
    );
    const policies = policyObjects(kubeConfig, options.watchNamespace);
    controllers.push(
      new Controller({
        reconciler: policyReconciler({
          kubeConfig,
          cloud: options.cloud,
          events,
          objects: policies,
          organizationOf: organizationOfNamespace(kubeConfig),
        }),
        informer: {
          kubeConfig,
          path: policies.watchPath,
          list: () => policies.list(),
          resyncMs: options.resyncMs,
        },
        metrics,
        log,
      }) as unknown as Controller<KubernetesObject>,
    );
    const webhookEndpoints = webhookEndpointObjects(kubeConfig, options.watchNamespace);
    controllers.push(
      new Controller({
        reconciler: webhookEndpointReconciler({
          kubeConfig,
          cloud: options.cloud,
          events,
          objects: webhookEndpoints,
          organizationOf: organizationOfNamespace(kubeConfig),
        }),
        informer: {
          kubeConfig,
          path: webhookEndpoints.watchPath,
          list: () => webhookEndpoints.list(),
          resyncMs: options.resyncMs,
        },
        metrics,
        log,
      }) as unknown as Controller<KubernetesObject>,
    );
  }

  const elector = new LeaderElector({
    kubeConfig,
    namespace: options.leaseNamespace,
    name: options.leaseName,
    identity: options.identity,
    leaseDurationMs: options.leaseDurationMs,
    renewDeadlineMs: options.renewDeadlineMs,
    retryPeriodMs: options.retryPeriodMs,
    log,
    onStartedLeading: async () => {
      metrics.leader.set(1);
      makeControllers();
      await Promise.all(controllers.map((c) => c.start()));
      log.info({ controllers: controllers.length }, "controllers started");
    },
    // Lost leadership (e.g. the apiserver was away longer than the renew deadline): every
    // controller is stopped, its in-flight reconciles finished, before the elector campaigns
    // again, so two replicas never write at once; a later win starts fresh controllers.
    onStoppedLeading: async () => {
      metrics.leader.set(0);
      await Promise.all(controllers.map((c) => c.stop()));
      controllers.length = 0;
    },
  });
  const health = options.health
    ? await startHealthServer(metrics, { ...options.health, healthy: () => true })
    : undefined;
  elector.start();
  return {
    metrics,
    health,
    elector,
    async stop() {
      // Controllers first, so nothing is written after the Lease is released.
      await Promise.all(controllers.map((c) => c.stop()));
      await elector.stop();
      metrics.leader.set(0);
      await health?.close();
    },
  };
}
