// One operator process: campaigns for the leader Lease, and while leading runs one controller per
// kind that has a reconciler. /healthz and /metrics are served whether or not it leads, so a
// standby replica is healthy too.
import type { KubeConfig, KubernetesListObject, KubernetesObject } from "@kubernetes/client-node";
import type { CloudApi } from "./cloud-api/index.js";
import { Controller, type Reconciler } from "./controller/controller.js";
import { startHealthServer, type HealthServer } from "./controller/health-server.js";
import { LeaderElector } from "./controller/leader-election.js";
import { OperatorMetrics } from "./controller/metrics.js";
import { EventRecorder } from "./kube/events.js";
import type { Logger } from "./log.js";
import { agentObjects, agentReconciler } from "./reconcilers/agent.js";
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
    const organizationOf = organizationOfNamespace(kubeConfig);
    const common = { kubeConfig, cloud: options.cloud, events };
    const watch = <T extends KubernetesObject>(
      objects: {
        watchPath: string;
        list(): Promise<KubernetesListObject<T>>;
        get(namespace: string, name: string): Promise<T | undefined>;
      },
      reconciler: Reconciler<T>,
    ) =>
      controllers.push(
        new Controller<T>({
          reconciler,
          read: ({ namespace, name }) => objects.get(namespace, name),
          informer: {
            kubeConfig,
            path: objects.watchPath,
            list: () => objects.list(),
            resyncMs: options.resyncMs,
          },
          metrics,
          log,
        }) as unknown as Controller<KubernetesObject>,
      );
    const ns = options.watchNamespace;
    const organizations = organizationObjects(kubeConfig, ns);
    watch(organizations, organizationReconciler({ ...common, objects: organizations }));
    const servers = mcpServerObjects(kubeConfig, ns);
    watch(servers, mcpServerReconciler({ ...common, objects: servers, organizationOf }));
    const tools = toolObjects(kubeConfig, ns);
    watch(
      tools,
      toolReconciler({ ...common, objects: tools, servers: mcpServerObjects(kubeConfig), organizationOf }),
    );
    const policies = policyObjects(kubeConfig, ns);
    watch(policies, policyReconciler({ ...common, objects: policies, organizationOf }));
    const agents = agentObjects(kubeConfig, ns);
    watch(
      agents,
      agentReconciler({ ...common, objects: agents, policies: policyObjects(kubeConfig), organizationOf }),
    );
    const webhookEndpoints = webhookEndpointObjects(kubeConfig, ns);
    watch(
      webhookEndpoints,
      webhookEndpointReconciler({ ...common, objects: webhookEndpoints, organizationOf }),
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
