// Which Cloud API organization a namespace configures: the one Organization resource in it.
import type { KubeConfig } from "@kubernetes/client-node";
import { organizationObjects } from "./organization.js";

export type OrganizationLookup =
  { organizationId: string } | { problem: { reason: string; message: string } };

export function organizationOfNamespace(kubeConfig: KubeConfig) {
  return async (namespace: string): Promise<OrganizationLookup> => {
    const list = await organizationObjects(kubeConfig, namespace).list();
    const live = list.items.filter((o) => !o.metadata?.deletionTimestamp);
    if (live.length === 0) {
      return {
        problem: { reason: "NoOrganization", message: `namespace ${namespace} has no Organization resource` },
      };
    }
    if (live.length > 1) {
      return {
        problem: {
          reason: "AmbiguousOrganization",
          message: `namespace ${namespace} has ${live.length} Organization resources; keep one`,
        },
      };
    }
    return { organizationId: live[0]!.spec.organizationId };
  };
}
