// Typed access to the countersign.dev objects of one kind: the list the informer starts from and
// the status write through the /status subresource.
import {
  CustomObjectsApi,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
} from "@kubernetes/client-node";
import { group, version, type KindDefinition } from "../crds/kinds.js";
import type { Condition } from "../crds/fields.js";

/** The name every write of the operator is recorded under in managedFields. */
export const fieldManager = "countersign-operator";

export interface CustomObject<Spec, Status> extends KubernetesObject {
  spec: Spec;
  status?: Status;
}

export interface StatusBase {
  observedGeneration?: number;
  conditions?: Condition[];
}

export class CustomObjects<Spec, Status extends StatusBase> {
  private readonly api: CustomObjectsApi;

  constructor(
    kubeConfig: KubeConfig,
    readonly definition: KindDefinition,
    private readonly namespace = "",
  ) {
    this.api = kubeConfig.makeApiClient(CustomObjectsApi);
  }

  get watchPath(): string {
    const ns = this.namespace ? `/namespaces/${this.namespace}` : "";
    return `/apis/${group}/${version}${ns}/${this.definition.plural}`;
  }

  async list(): Promise<KubernetesListObject<CustomObject<Spec, Status>>> {
    const plural = this.definition.plural;
    const list = this.namespace
      ? await this.api.listNamespacedCustomObject({ group, version, plural, namespace: this.namespace })
      : await this.api.listClusterCustomObject({ group, version, plural });
    return list as KubernetesListObject<CustomObject<Spec, Status>>;
  }

  async get(namespace: string, name: string): Promise<CustomObject<Spec, Status> | undefined> {
    try {
      return (await this.api.getNamespacedCustomObject({
        group,
        version,
        plural: this.definition.plural,
        namespace,
        name,
      })) as CustomObject<Spec, Status>;
    } catch (error) {
      if ((error as { code?: number }).code === 404) return undefined;
      throw error;
    }
  }

  /** Replaces the status (optimistic concurrency on the object's resourceVersion). */
  async writeStatus(object: CustomObject<Spec, Status>, status: Status): Promise<CustomObject<Spec, Status>> {
    const { name, namespace } = object.metadata!;
    return (await this.api.replaceNamespacedCustomObjectStatus({
      group,
      version,
      plural: this.definition.plural,
      namespace: namespace!,
      name: name!,
      body: { ...object, status },
      fieldManager,
    })) as CustomObject<Spec, Status>;
  }

  /** Replaces the whole object (used to add or remove finalizers). */
  async replace(object: CustomObject<Spec, Status>): Promise<CustomObject<Spec, Status>> {
    const { name, namespace } = object.metadata!;
    return (await this.api.replaceNamespacedCustomObject({
      group,
      version,
      plural: this.definition.plural,
      namespace: namespace!,
      name: name!,
      body: object,
      fieldManager,
    })) as CustomObject<Spec, Status>;
  }
}
