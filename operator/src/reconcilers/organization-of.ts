// Which Cloud API organization a namespace configures: the one Organization resource in it.
import type { KubeConfig } from "@kubernetes/client-node";
import { organizationObjects, type OrganizationObject } from "./organization.js";

export type OrganizationLookup =
  | { organizationId: string; organization: OrganizationObject }
  | { problem: { reason: string; message: string } };

export function organizationOfNamespace(kubeConfig: KubeConfig) {
  return async (namespace: string): Promise<OrganizationLookup> => {
    const list = await organizationObjects(kubeConfig, namespace).list();
    // An Organization being deleted still serves the namespace: its finalizer waits until the
    // other resources have cleaned up the Cloud API side through it.
    const live = list.items.filter((o) => !o.metadata?.deletionTimestamp);
    const candidates = live.length > 0 ? live : list.items;
    if (candidates.length === 0) {
      return {
        problem: { reason: "NoOrganization", message: `namespace ${namespace} has no Organization resource` },
      };
    }
    if (candidates.length > 1) {
      return {
        problem: {
          reason: "AmbiguousOrganization",
          message: `namespace ${namespace} has ${candidates.length} Organization resources; keep one`,
        },
      };
    }
    return { organizationId: candidates[0]!.spec.organizationId, organization: candidates[0]! };
  };
}
