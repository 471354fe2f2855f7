// Organization reconciler: checks the operator can reach the bound organization, keeps the
// settings Git holds (repairing changes made elsewhere on the next pass), checks the principal key
// Secret, and reports it all in status. The Cloud API organization is a person's to create and
// delete, so deleting the resource changes nothing there; its finalizer only holds it until the
// namespace's other resources, which reach the Cloud API through it, have cleaned up their side
// (`kubectl delete -f config/samples/` deletes them all at once, in any order).
import type { KubeConfig } from "@kubernetes/client-node";
import type { Organization, OrganizationUpdate } from "../cloud-api/index.js";
import { isRefusal } from "../cloud-api/refusal.js";
import type { Reconciler } from "../controller/controller.js";
import { kindDefinition } from "../crds/kinds.js";
import { organizationSpec, type OrganizationSpec, type OrganizationStatus } from "../crds/organization.js";
import { CustomObjects, type CustomObject } from "../kube/custom-objects.js";
import { addFinalizer, hasFinalizer, removeFinalizer } from "../kube/finalizer.js";
import { principalKeyReader } from "../kube/principal-key.js";
import type { ConditionInput } from "../status/conditions.js";
import { StatusDraft } from "../status/status-draft.js";
import type { ReconcilerDeps } from "./deps.js";

/** Kinds whose reconcilers reach the Cloud API through their namespace's Organization. */
const dependentKinds = ["Agent", "MCPServer", "Tool", "Policy", "WebhookEndpoint"] as const;

export type OrganizationObject = CustomObject<OrganizationSpec, OrganizationStatus>;

type Deps = Omit<ReconcilerDeps<OrganizationSpec, OrganizationStatus>, "organizationOf">;

export function organizationObjects(kubeConfig: KubeConfig, namespace = "") {
  return new CustomObjects<OrganizationSpec, OrganizationStatus>(
    kubeConfig,
    kindDefinition("Organization"),
    namespace,
  );
}

/** The PATCH that brings the organization to the spec's settings; empty when nothing differs. */
export function settingsDrift(spec: OrganizationSpec, org: Organization): OrganizationUpdate {
  const want = spec.settings ?? {};
  const update: OrganizationUpdate = {};
  if (want.name !== undefined && want.name !== org.name) update.name = want.name;
  if (want.approvalTtlSeconds !== undefined && want.approvalTtlSeconds !== org.approval_ttl_seconds) {
    update.approval_ttl_seconds = want.approvalTtlSeconds;
  }
  if (want.agentDisclosure !== undefined && want.agentDisclosure !== org.agent_disclosure)
    update.agent_disclosure = want.agentDisclosure;
  return update;
}

export function organizationReconciler(deps: Deps): Reconciler<OrganizationObject> {
  const readPrincipalKey = principalKeyReader(deps.kubeConfig);
  const now = deps.now ?? (() => new Date());

  async function principalKeyCondition(
    namespace: string,
    spec: OrganizationSpec,
  ): Promise<{ condition: ConditionInput; kid?: string } | undefined> {
    const ref = spec.principalKeySecretRef;
    if (!ref) return undefined;
    const type = "PrincipalKeyAvailable";
    const key = await readPrincipalKey(namespace, ref);
    if ("problem" in key) return { condition: { type, status: "False", ...key.problem } };
    const principal = await deps.cloud.organizations.principal(spec.organizationId);
    if (!principal?.valid)
      return {
        condition: {
          type,
          status: "False",
          reason: "NoPrincipal",
          message: `the organization has no valid principal; an owner registers the one whose key is in Secret ${ref.name} (${key.signer.kid})`,
        },
      };
    if (principal.kid !== key.signer.kid)
      return {
        condition: {
          type,
          status: "False",
          reason: "PrincipalMismatch",
          message: `Secret ${ref.name} holds the key of ${key.signer.kid}, but the organization's principal is ${principal.kid}`,
        },
      };
    return {
      condition: {
        type,
        status: "True",
        reason: "Found",
        message: `Secret ${ref.name} holds the organization principal's key`,
      },
      kid: key.signer.kid,
    };
  }

  /**
   * The resources of the namespace that still need this Organization to reach the Cloud API (to
   * delete what they created there). None when another live Organization serves the namespace.
   */
  async function dependentsOf(object: OrganizationObject): Promise<string[]> {
    const namespace = object.metadata!.namespace!;
    const others = (await deps.objects.list()).items.filter(
      (o) =>
        o.metadata?.namespace === namespace &&
        o.metadata?.uid !== object.metadata?.uid &&
        !o.metadata?.deletionTimestamp,
    );
    if (others.length > 0) return [];
    const counts = await Promise.all(
      dependentKinds.map(async (kind) => {
        const list = await new CustomObjects(deps.kubeConfig, kindDefinition(kind), namespace).list();
        return list.items.length > 0 ? [`${list.items.length} ${kind}`] : [];
      }),
    );
    return counts.flat();
  }

  return {
    kind: "Organization",
    async reconcile(_key, object) {
      if (!object) return;
      const namespace = object.metadata!.namespace!;
      const spec = organizationSpec.parse(object.spec);
      const draft = new StatusDraft({ objects: deps.objects, events: deps.events, now }, object);

      if (object.metadata?.deletionTimestamp) {
        if (!hasFinalizer(object)) return;
        const waiting = await dependentsOf(object);
        if (waiting.length > 0) {
          const message = `waiting for ${waiting.join(", ")} to clean up the Cloud API side first`;
          draft.set({ type: "Ready", status: "False", reason: "Deleting", message });
          await draft.write();
          return { requeueAfterMs: 5_000 };
        }
        await removeFinalizer(deps.objects, object);
        return;
      }
      if (!hasFinalizer(object)) {
        await addFinalizer(deps.objects, object);
        return;
      }

      let org: Organization;
      try {
        org = await deps.cloud.organizations.get(spec.organizationId);
        const update = settingsDrift(spec, org);
        if (Object.keys(update).length > 0) {
          org = await deps.cloud.organizations.update(spec.organizationId, update);
          await deps.events.record(
            object,
            "Normal",
            "SettingsUpdated",
            `Set ${Object.keys(update).join(", ")} of organization ${org.id} in the Cloud API`,
          );
        }
      } catch (error) {
        // A refusal is shown and waits for a change (of the spec, or of the binding, which is a
        // person's in the Cloud API and no watch event: looked at again each minute); anything
        // else is retried with backoff and shown by the controller.
        if (!isRefusal(error)) throw error;
        return draft.refused(error, spec.organizationId);
      }

      draft.update({ organizationName: org.name, slug: org.slug, plan: org.plan });
      draft.set({
        type: "Reconciled",
        status: "True",
        reason: "Synced",
        message: `organization ${org.id} matches the spec`,
      });
      const principalCheck = await principalKeyCondition(namespace, spec);
      // The KID shown is the one delegations are signed with: only when the Secret's key is it.
      const principal = principalCheck?.condition;
      if (principal) draft.set(principal);
      draft.update({ principalKid: principalCheck?.kid });
      if (principal?.status === "False")
        draft.set({ type: "Ready", status: "False", reason: principal.reason, message: principal.message });
      else
        draft.set({
          type: "Ready",
          status: "True",
          reason: "Synced",
          message: `bound to organization ${org.name}`,
        });
      await draft.write();
    },
  };
}
