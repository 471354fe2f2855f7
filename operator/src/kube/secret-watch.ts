// The Secrets resources name (the principal key, MCP credentials, the Secrets the operator writes),
// watched so a deleted, rotated or recreated Secret requeues the resources naming it within
// seconds instead of at the next resync. Only events are used: nothing is read from the cache, and
// each reconcile reads the Secret it needs from the apiserver.
import { CoreV1Api, type KubeConfig, type V1Secret } from "@kubernetes/client-node";
import type { InformerEvent } from "../controller/informer.js";
import { ResilientInformer } from "../controller/informer.js";
import type { Watched } from "../controller/dependents.js";
import type { Logger } from "../log.js";

export class SecretWatch implements Watched<V1Secret> {
  private readonly informer: ResilientInformer<V1Secret>;
  private readonly listeners: Array<(event: InformerEvent, object: V1Secret) => void> = [];

  constructor(kubeConfig: KubeConfig, log: Logger, namespace?: string) {
    const api = kubeConfig.makeApiClient(CoreV1Api);
    this.informer = new ResilientInformer<V1Secret>({
      kubeConfig,
      path: namespace ? `/api/v1/namespaces/${namespace}/secrets` : "/api/v1/secrets",
      list: () => (namespace ? api.listNamespacedSecret({ namespace }) : api.listSecretForAllNamespaces()),
      resyncMs: 0,
      onEvent: (event, secret) => {
        for (const listener of this.listeners) listener(event, secret);
      },
      onError: (error, retryInMs) =>
        log.warn(
          { kind: "Secret", retryInMs, status: (error as { code?: unknown })?.code },
          "watch failed; restarting",
        ),
    });
  }

  onObject(listener: (event: InformerEvent, object: V1Secret) => void): void {
    this.listeners.push(listener);
  }

  start = () => this.informer.start();
  stop = () => this.informer.stop();
}
