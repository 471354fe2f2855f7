// The start every reconciler of a kind that owns Cloud API objects shares: the namespace's
// organization, and the finalizer. While the object is being deleted its Cloud API side is cleaned
// up (which needs the organization once something was created there) before the finalizer goes;
// otherwise the finalizer is added first (that update comes back as a watch event) and the pass
// goes on with the organization's id.
import type { ReconcileResult } from "../controller/controller.js";
import type { CustomObject, CustomObjects, StatusBase } from "../kube/custom-objects.js";
import { addFinalizer, hasFinalizer, removeFinalizer } from "../kube/finalizer.js";
import type { StatusDraft } from "../status/status-draft.js";
import type { OrganizationLookup } from "./organization-of.js";

export type Lifecycle = { stop: ReconcileResult | undefined } | { orgId: string };

export async function finalizerLifecycle<Spec, Status extends StatusBase>(c: {
  object: CustomObject<Spec, Status>;
  objects: CustomObjects<Spec, Status>;
  draft: StatusDraft<Spec, Status>;
  org: OrganizationLookup;
  /** Whether the Cloud API holds something of this object (else no organization is needed to delete it). */
  created: boolean;
  /**
   * Removes this object's Cloud API side and Secrets, idempotently (something already gone is
   * done). `orgId` is undefined only when nothing was created. A result ends the pass with the
   * finalizer kept (a refusal shown in status).
   */
  cleanUp: (orgId: string | undefined) => Promise<ReconcileResult | undefined | void>;
}): Promise<Lifecycle> {
  const { object, objects, draft, org } = c;
  if (object.metadata?.deletionTimestamp) {
    if (!hasFinalizer(object)) return { stop: undefined };
    if (c.created && "problem" in org)
      return {
        stop: await draft.fail(
          org.problem.reason,
          `cannot clean up the Cloud API side: ${org.problem.message}`,
        ),
      };
    const kept = await c.cleanUp("problem" in org ? undefined : org.organizationId);
    if (kept) return { stop: kept };
    await removeFinalizer(objects, object);
    return { stop: undefined };
  }
  // The namespace's Organization resource is watched: its arrival requeues this object.
  if ("problem" in org) return { stop: await draft.fail(org.problem.reason, org.problem.message) };
  if (!hasFinalizer(object)) {
    await addFinalizer(objects, object);
    return { stop: undefined };
  }
  return { orgId: org.organizationId };
}
