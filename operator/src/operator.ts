// One operator process: campaigns for the leader Lease, and while leading runs one controller per
// kind that has a reconciler. /healthz and /metrics are served whether or not it leads, so a
// standby replica is healthy too.
import type { KubeConfig, KubernetesObject } from "@kubernetes/client-node";
import { startAdmissionServer, type AdmissionServer } from "./admission/server.js";
import { CloudApiError, type CloudApi } from "./cloud-api/index.js";
import { Controller, type Reconciler } from "./controller/controller.js";
import { startHealthServer, type HealthServer } from "./controller/health-server.js";
import { LeaderElector } from "./controller/leader-election.js";
import { OperatorMetrics } from "./controller/metrics.js";
import { requeueDependents, sameNamespace, type DependentsOf } from "./controller/dependents.js";
import type { CustomObject, CustomObjects, StatusBase } from "./kube/custom-objects.js";
import { EventRecorder } from "./kube/events.js";
import { SecretWatch } from "./kube/secret-watch.js";
import { failureOf } from "./status/failure.js";
import { StatusDraft } from "./status/status-draft.js";
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
  /** Serve the admission webhook (every replica, leader or not). */
  admission?: { port: number; host?: string; certDir: string };
}

export interface RunningOperator {
  metrics: OperatorMetrics;
  health?: HealthServer;
  admission?: AdmissionServer;
  elector: LeaderElector;
  stop(): Promise<void>;
}

export async function startOperator(options: OperatorOptions): Promise<RunningOperator> {
  const { kubeConfig, log } = options;
  const metrics = new OperatorMetrics();
  const events = new EventRecorder(kubeConfig, log, options.identity);
  const controllers: Controller<KubernetesObject>[] = [];

  let secrets: SecretWatch | undefined;
  let controllersSynced = false;

  // An outage of the Cloud API, or its end, concerns every resource (not only those being edited):
  // each is reconciled at once, so all say CloudAPIUnavailable within one probe interval and clear
  // as soon as it answers again (cloud-api/health.ts).
  options.cloud.health.onChange((available) => {
    metrics.cloudApiAvailable.set(available ? 1 : 0);
    if (available) log.info("the Cloud API answers again");
    else log.warn("the Cloud API does not answer");
    for (const controller of controllers) controller.reconcileAllNow();
  });

  function makeControllers() {
    const organizationOf = organizationOfNamespace(kubeConfig);
    const common = { kubeConfig, cloud: options.cloud, events };
    const watch = <Spec, Status extends StatusBase>(
      objects: CustomObjects<Spec, Status>,
      reconciler: Reconciler<CustomObject<Spec, Status>>,
    ) => {
      const controller = new Controller<CustomObject<Spec, Status>>({
        reconciler,
        read: ({ namespace, name }) => objects.get(namespace, name),
        informer: {
          kubeConfig,
          path: objects.watchPath,
          list: () => objects.list(),
          resyncMs: options.resyncMs,
        },
        reportFailure: (object, error) => reportFailure(objects, object, error),
        metrics,
        log,
      });
      controllers.push(controller as unknown as Controller<KubernetesObject>);
      return controller;
    };

    /** A failed pass: its cause in Reconciled and Ready (on the object as stored now), and an Event. */
    async function reportFailure<Spec, Status extends StatusBase>(
      objects: CustomObjects<Spec, Status>,
      object: CustomObject<Spec, Status>,
      error: unknown,
    ) {
      // A write conflict only means the object changed during the pass: the retry reads it again,
      // and showing it would flip Ready for nothing a person can act on.
      if ((error as { code?: unknown })?.code === 409 && !(error instanceof CloudApiError)) return;
      const current = await objects.get(object.metadata!.namespace!, object.metadata!.name!);
      if (!current) return;
      const organizationId = (current.spec as { organizationId?: string }).organizationId;
      const { reason, message } = failureOf(error, organizationId);
      await new StatusDraft({ objects, events, now: () => new Date() }, current).fail(reason, message);
    }

    const ns = options.watchNamespace;
    const organizations = organizationObjects(kubeConfig, ns);
    const organizationController = watch(
      organizations,
      organizationReconciler({ ...common, objects: organizations }),
    );
    const servers = mcpServerObjects(kubeConfig, ns);
    const serverController = watch(
      servers,
      mcpServerReconciler({ ...common, objects: servers, organizationOf }),
    );
    const tools = toolObjects(kubeConfig, ns);
    const toolController = watch(
      tools,
      toolReconciler({ ...common, objects: tools, servers: mcpServerObjects(kubeConfig), organizationOf }),
    );
    const policies = policyObjects(kubeConfig, ns);
    const policyController = watch(
      policies,
      policyReconciler({ ...common, objects: policies, organizationOf }),
    );
    const agents = agentObjects(kubeConfig, ns);
    const agentController = watch(
      agents,
      agentReconciler({ ...common, objects: agents, policies: policyObjects(kubeConfig), organizationOf }),
    );
    const webhookEndpoints = webhookEndpointObjects(kubeConfig, ns);
    const webhookController = watch(
      webhookEndpoints,
      webhookEndpointReconciler({ ...common, objects: webhookEndpoints, organizationOf }),
    );

    // What each kind waits for or reads: a change requeues exactly the resources naming it.
    const namespaceOf = (o: KubernetesObject) => `${o.metadata?.namespace ?? ""}/*`;
    for (const dependent of [
      serverController,
      toolController,
      policyController,
      agentController,
      webhookController,
    ])
      requeueDependents({
        referenced: organizationController,
        dependent: dependent as unknown as DependentsOf<KubernetesObject>,
        refsOf: (d) => [namespaceOf(d)],
        refOf: namespaceOf,
        specOnly: true,
      });
    requeueDependents({
      referenced: serverController,
      dependent: toolController,
      refsOf: (t) => sameNamespace(t, t.spec?.mcpServerRef?.name),
    });
    requeueDependents({
      referenced: policyController,
      dependent: agentController,
      refsOf: (a) => sameNamespace(a, a.spec?.policyRef?.name),
    });
    requeueDependents({
      referenced: agentController,
      dependent: policyController,
      refsOf: (p) => (p.spec?.rollout?.observe ?? []).flatMap((w) => sameNamespace(p, w.agent)),
    });
    secrets = new SecretWatch(kubeConfig, log, ns);
    requeueDependents({
      referenced: secrets,
      dependent: organizationController,
      refsOf: (o) => sameNamespace(o, o.spec?.principalKeySecretRef?.name),
    });
    requeueDependents({
      referenced: secrets,
      dependent: serverController,
      refsOf: (m) => sameNamespace(m, m.spec?.credentialSecretRef?.name),
    });
    requeueDependents({
      referenced: secrets,
      dependent: agentController,
      refsOf: (a) => sameNamespace(a, a.spec?.gatewayKey?.secretName),
    });
    requeueDependents({
      referenced: secrets,
      dependent: webhookController,
      refsOf: (w) => sameNamespace(w, w.spec?.secretName),
    });
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
      await Promise.all([...controllers.map((c) => c.start()), secrets?.start()]);
      options.cloud.health.start();
      controllersSynced = true;
      log.info({ controllers: controllers.length }, "controllers started");
    },
    // Lost leadership (e.g. the apiserver was away longer than the renew deadline): every
    // controller is stopped, its in-flight reconciles finished, before the elector campaigns
    // again, so two replicas never write at once; a later win starts fresh controllers.
    onStoppedLeading: async () => {
      metrics.leader.set(0);
      controllersSynced = false;
      options.cloud.health.stop();
      await Promise.all([...controllers.map((c) => c.stop()), secrets?.stop()]);
      controllers.length = 0;
    },
  });
  // Ready: the apiserver answered a Lease read within a lease duration, and a leader's controllers
  // have listed their kinds (a standby is ready without leading: it serves the admission webhook).
  const leaseDurationMs = options.leaseDurationMs ?? 15_000;
  const ready = () => {
    if (!elector.lastContact) return "the Kubernetes API has not answered yet";
    if (Date.now() - elector.lastContact > leaseDurationMs)
      return "the Kubernetes API has not answered lately";
    if (elector.isLeader && !controllersSynced) return "the controllers have not listed their kinds yet";
    return undefined;
  };
  const health = options.health
    ? await startHealthServer(metrics, { ...options.health, healthy: () => true, ready })
    : undefined;
  const admission = options.admission ? await startAdmissionServer({ ...options.admission, log }) : undefined;
  elector.start();
  return {
    metrics,
    health,
    admission,
    elector,
    async stop() {
      // Controllers first, so nothing is written after the Lease is released.
      options.cloud.health.stop();
      await Promise.all([...controllers.map((c) => c.stop()), secrets?.stop()]);
      await elector.stop();
      metrics.leader.set(0);
      await admission?.close();
      await health?.close();
    },
  };
}
