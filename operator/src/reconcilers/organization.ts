// Organization reconciler: checks the operator can reach the bound organization, keeps the
// settings Git holds (repairing changes made elsewhere on the next pass), checks the principal key
// Secret, and reports it all in status. The Cloud API organization is a person's to create and
// delete, so deleting the resource changes nothing there and needs no finalizer.
import { createPrivateKey } from "node:crypto";
import { CoreV1Api, type KubeConfig } from "@kubernetes/client-node";
import {
  type CloudApi,
  CloudApiError,
  type Organization,
  type OrganizationUpdate,
} from "../cloud-api/index.js";
import type { Reconciler } from "../controller/controller.js";
import { kindDefinition } from "../crds/kinds.js";
import { organizationSpec, type OrganizationSpec, type OrganizationStatus } from "../crds/organization.js";
import { CustomObjects, type CustomObject } from "../kube/custom-objects.js";
import type { EventRecorder } from "../kube/events.js";
import type { ConditionInput } from "../status/conditions.js";
import { StatusDraft } from "../status/status-draft.js";

export type OrganizationObject = CustomObject<OrganizationSpec, OrganizationStatus>;

interface Deps {
  kubeConfig: KubeConfig;
  cloud: CloudApi;
  events: EventRecorder;
  objects: CustomObjects<OrganizationSpec, OrganizationStatus>;
  now?: () => Date;
}

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
  const core = deps.kubeConfig.makeApiClient(CoreV1Api);
  const now = deps.now ?? (() => new Date());

  async function principalKeyCondition(
    namespace: string,
    spec: OrganizationSpec,
  ): Promise<ConditionInput | undefined> {
    const ref = spec.principalKeySecretRef;
    if (!ref) return undefined;
    const type = "PrincipalKeyAvailable";
    let data: Record<string, string> | undefined;
    try {
      data = (await core.readNamespacedSecret({ name: ref.name, namespace })).data;
    } catch (error) {
      if ((error as { code?: number }).code === 404) {
        return {
          type,
          status: "False",
          reason: "SecretNotFound",
          message: `Secret ${ref.name} does not exist`,
        };
      }
      throw error;
    }
    const value = data?.[ref.key];
    if (!value)
      return {
        type,
        status: "False",
        reason: "KeyNotFound",
        message: `Secret ${ref.name} has no key ${ref.key}`,
      };
    try {
      const key = createPrivateKey(Buffer.from(value, "base64"));
      if (key.asymmetricKeyType !== "ed25519") throw new Error("not ed25519");
    } catch {
      return {
        type,
        status: "False",
        reason: "InvalidKey",
        message: `Secret ${ref.name} key ${ref.key} is not an Ed25519 private key (PKCS#8 PEM)`,
      };
    }
    return {
      type,
      status: "True",
      reason: "Found",
      message: `Secret ${ref.name} holds the organization principal's key`,
    };
  }

  return {
    kind: "Organization",
    async reconcile(_key, object) {
      if (!object || object.metadata?.deletionTimestamp) return;
      const namespace = object.metadata!.namespace!;
      const spec = organizationSpec.parse(object.spec);
      const draft = new StatusDraft({ objects: deps.objects, events: deps.events, now }, object);

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
        if (!(error instanceof CloudApiError) || error.status >= 500 || error.status === 429) throw error;
        const reason =
          error.status === 404
            ? "OrganizationNotFound"
            : error.status === 401 || error.status === 403
              ? "NotAuthorized"
              : "Refused";
        const message =
          error.status === 404
            ? `organization ${spec.organizationId} does not exist or the operator is not bound to it`
            : `the Cloud API refused: ${error.code}: ${error.message}`;
        draft.set({ type: "Reconciled", status: "False", reason, message });
        draft.set({ type: "Ready", status: "False", reason, message });
        if (await draft.write()) await deps.events.record(object, "Warning", reason, message);
        return;
      }

      draft.update({ organizationName: org.name, slug: org.slug, plan: org.plan });
      draft.set({
        type: "Reconciled",
        status: "True",
        reason: "Synced",
        message: `organization ${org.id} matches the spec`,
      });
      const principal = await principalKeyCondition(namespace, spec);
      if (principal) draft.set(principal);
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
