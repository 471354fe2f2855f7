// Kubernetes Events for what a person should see in `kubectl describe` (a setting changed in the
// Cloud API, a refusal). Messages name ids and fields, never a secret.
import { CoreV1Api, type KubeConfig, type KubernetesObject } from "@kubernetes/client-node";
import { randomBytes } from "node:crypto";
import { fieldManager } from "./custom-objects.js";
import type { Logger } from "../log.js";

export type EventType = "Normal" | "Warning";

export class EventRecorder {
  private readonly api: CoreV1Api;

  constructor(
    kubeConfig: KubeConfig,
    private readonly log: Logger,
    /** This replica (the pod name), so `kubectl get events -o wide` tells which one acted. */
    private readonly instance: string,
    private readonly component = "countersign-operator",
  ) {
    this.api = kubeConfig.makeApiClient(CoreV1Api);
  }

  /** Best effort: a failed event is logged, never fails the reconcile. */
  async record(object: KubernetesObject, type: EventType, reason: string, message: string): Promise<void> {
    const meta = object.metadata!;
    const now = new Date();
    try {
      await this.api.createNamespacedEvent({
        namespace: meta.namespace!,
        fieldManager,
        body: {
          metadata: { name: `${meta.name}.${randomBytes(8).toString("hex")}`, namespace: meta.namespace },
          involvedObject: {
            apiVersion: object.apiVersion,
            kind: object.kind,
            name: meta.name,
            namespace: meta.namespace,
            uid: meta.uid,
            resourceVersion: meta.resourceVersion,
          },
          type,
          reason,
          message: message.slice(0, 1024),
          source: { component: this.component, host: this.instance },
          reportingComponent: this.component,
          reportingInstance: this.instance,
          firstTimestamp: now,
          lastTimestamp: now,
          count: 1,
        },
      });
    } catch (error) {
      this.log.warn(
        { reason, object: `${meta.namespace}/${meta.name}`, status: (error as { code?: number }).code },
        "could not record an event",
      );
    }
  }
}
