// The skeleton of every reconciler of a kind that owns Cloud API objects (Agent, MCPServer, Tool,
// WebhookEndpoint): a pass reads the spec, starts the status draft (this generation observed),
// looks up the namespace's organization and goes through the finalizer lifecycle (lifecycle.ts);
// only then does the kind's own work run, with the organization's id. A kind says how to parse its
// spec, whether the Cloud API holds something of an object, how to clean that up, and how to sync.
import type { Reconciler, ReconcileResult } from "../controller/controller.js";
import type { CustomObject, StatusBase } from "../kube/custom-objects.js";
import { StatusDraft } from "../status/status-draft.js";
import type { ReconcilerDeps } from "./deps.js";
import { finalizerLifecycle } from "./lifecycle.js";
import type { OrganizationLookup } from "./organization-of.js";

/** What one pass over one object has at hand. */
export interface OwnedPass<Spec, Status extends StatusBase> {
  object: CustomObject<Spec, Status>;
  namespace: string;
  spec: Spec;
  draft: StatusDraft<Spec, Status>;
  org: OrganizationLookup;
}

type PassResult = Promise<ReconcileResult | undefined | void>;

export function ownedResourceReconciler<Spec, Status extends StatusBase>(kind: {
  kind: string;
  deps: ReconcilerDeps<Spec, Status>;
  parseSpec: (spec: unknown) => Spec;
  /** Whether the Cloud API holds something of this object (else no organization is needed to delete it). */
  created: (status: Status) => boolean;
  /** Removes the Cloud API side and Secrets, idempotently; `orgId` is undefined only when nothing was created. */
  cleanUp: (pass: OwnedPass<Spec, Status>, orgId: string | undefined) => PassResult;
  /** Brings the Cloud API side to the spec and writes the status. */
  sync: (pass: OwnedPass<Spec, Status> & { orgId: string }) => PassResult;
}): Reconciler<CustomObject<Spec, Status>> {
  const { deps } = kind;
  const now = deps.now ?? (() => new Date());
  return {
    kind: kind.kind,
    async reconcile(_key, object) {
      if (!object) return;
      const namespace = object.metadata!.namespace!;
      const spec = kind.parseSpec(object.spec);
      const draft = new StatusDraft({ objects: deps.objects, events: deps.events, now }, object);
      const org = await deps.organizationOf(namespace);
      const pass: OwnedPass<Spec, Status> = { object, namespace, spec, draft, org };
      const step = await finalizerLifecycle({
        object,
        objects: deps.objects,
        draft,
        org,
        created: kind.created(draft.status),
        cleanUp: (orgId) => kind.cleanUp(pass, orgId),
      });
      if ("stop" in step) return step.stop;
      return kind.sync({ ...pass, orgId: step.orgId });
    },
  };
}
