// What every reconciler is given; a kind that reads more (an Agent its Policy, a Tool its
// MCPServer) extends it.
import type { KubeConfig } from "@kubernetes/client-node";
import type { CloudApi } from "../cloud-api/index.js";
import type { CustomObjects, StatusBase } from "../kube/custom-objects.js";
import type { EventRecorder } from "../kube/events.js";
import type { OrganizationLookup } from "./organization-of.js";

export interface ReconcilerDeps<Spec, Status extends StatusBase> {
  kubeConfig: KubeConfig;
  cloud: CloudApi;
  events: EventRecorder;
  objects: CustomObjects<Spec, Status>;
  /** The namespace's Organization resource and its Cloud API organization. */
  organizationOf: (namespace: string) => Promise<OrganizationLookup>;
  now?: () => Date;
}
