// Secrets the operator writes (gateway keys, webhook signing secrets): labelled as the operator's,
// owned by the resource they belong to (so a cluster's garbage collector removes them too), and
// annotated with the Cloud API id they hold a secret of, so a lost status can be recovered. A
// Secret of the same name the operator did not make is never overwritten: the reconciler checks
// `isOurs` before it creates anything in the Cloud API (docs/crds.md).
import { fieldManager } from "./custom-objects.js";
import { CoreV1Api, type KubeConfig, type KubernetesObject, type V1Secret } from "@kubernetes/client-node";

export const managedByLabel = { "app.kubernetes.io/managed-by": "countersign-operator" };
export const cloudIdAnnotation = "countersign.dev/cloud-id";

/** Whether the operator made this Secret (its label), so it may replace or delete it. */
export const isOurs = (secret: V1Secret): boolean =>
  secret.metadata?.labels?.["app.kubernetes.io/managed-by"] ===
  managedByLabel["app.kubernetes.io/managed-by"];

export class SecretWriter {
  private readonly api: CoreV1Api;

  constructor(kubeConfig: KubeConfig) {
    this.api = kubeConfig.makeApiClient(CoreV1Api);
  }

  async read(namespace: string, name: string): Promise<V1Secret | undefined> {
    try {
      return await this.api.readNamespacedSecret({ namespace, name });
    } catch (error) {
      if ((error as { code?: number }).code === 404) return undefined;
      throw error;
    }
  }

  /** Creates or replaces the Secret with exactly `data` (plain strings) and these annotations. */
  async write(
    owner: KubernetesObject,
    name: string,
    cloudId: string,
    data: Record<string, string>,
    annotations: Record<string, string> = {},
  ): Promise<void> {
    const namespace = owner.metadata!.namespace!;
    const body: V1Secret = {
      apiVersion: "v1",
      kind: "Secret",
      type: "Opaque",
      metadata: {
        name,
        namespace,
        labels: managedByLabel,
        annotations: { ...annotations, [cloudIdAnnotation]: cloudId },
        ownerReferences: [
          {
            apiVersion: owner.apiVersion!,
            kind: owner.kind!,
            name: owner.metadata!.name!,
            uid: owner.metadata!.uid!,
            controller: true,
          },
        ],
      },
      stringData: data,
    };
    const existing = await this.read(namespace, name);
    if (!existing) {
      await this.api.createNamespacedSecret({ namespace, body, fieldManager });
      return;
    }
    if (!isOurs(existing)) throw new SecretNotOursError(name);
    await this.api.replaceNamespacedSecret({
      namespace,
      name,
      body: { ...body, metadata: { ...body.metadata, resourceVersion: existing.metadata?.resourceVersion } },
      fieldManager,
    });
  }

  /** Deletes the Secret if the operator made it; someone else's Secret of that name is left alone. */
  async deleteIfOurs(namespace: string, name: string): Promise<void> {
    const existing = await this.read(namespace, name);
    if (!existing || !isOurs(existing)) return;
    try {
      await this.api.deleteNamespacedSecret({ namespace, name });
    } catch (error) {
      if ((error as { code?: number }).code !== 404) throw error;
    }
  }
}

/** A Secret of the name the spec gives exists and the operator did not make it (condition reason `SecretNotOwned`). */
export class SecretNotOursError extends Error {
  readonly reason = "SecretNotOwned";
  constructor(readonly secretName: string) {
    super(
      `Secret ${secretName} exists and was not made by the operator; nothing is created until it is removed or spec.secretName names another`,
    );
  }
}
