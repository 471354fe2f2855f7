// WebhookEndpoint reconciler: keeps a Cloud API webhook endpoint equal to the spec (creating it,
// repairing changes made elsewhere, recreating it when deleted elsewhere), writes its signing
// secret to the named Secret (the secret leaves the Cloud API only on create and rotate), rotates
// it when the rotation annotation changes, summarises delivery health in status, and on deletion
// removes the endpoint and the Secret before letting the finalizer go.
import type { KubeConfig } from "@kubernetes/client-node";
import { type WebhookEndpoint, type WebhookEndpointInput } from "../cloud-api/index.js";
import { isNotFound, isRefusal } from "../cloud-api/refusal.js";
import type { Reconciler } from "../controller/controller.js";
import { kindDefinition } from "../crds/kinds.js";
import {
  rotateSigningSecretAnnotation,
  webhookEndpointSpec,
  type WebhookEndpointSpec,
  type WebhookEndpointStatus,
} from "../crds/webhook-endpoint.js";
import { CustomObjects, type CustomObject } from "../kube/custom-objects.js";
import { cloudIdAnnotation, SecretNotOursError, SecretWriter } from "../kube/secrets.js";
import type { ReconcilerDeps } from "./deps.js";
import { ownedResourceReconciler } from "./owned-resource.js";

export type WebhookEndpointObject = CustomObject<WebhookEndpointSpec, WebhookEndpointStatus>;
export const signingSecretKey = "signing-secret";

type Deps = ReconcilerDeps<WebhookEndpointSpec, WebhookEndpointStatus>;

export function webhookEndpointObjects(kubeConfig: KubeConfig, namespace = "") {
  return new CustomObjects<WebhookEndpointSpec, WebhookEndpointStatus>(
    kubeConfig,
    kindDefinition("WebhookEndpoint"),
    namespace,
  );
}

function desired(spec: WebhookEndpointSpec): WebhookEndpointInput {
  return {
    url: spec.url,
    description: spec.description ?? "",
    enabled: spec.enabled,
    event_types: spec.events,
  };
}

/** The members of a PATCH that bring `actual` to `want`; empty when equal. */
export function endpointDrift(
  want: WebhookEndpointInput,
  actual: WebhookEndpoint,
): Partial<WebhookEndpointInput> {
  const update: Partial<WebhookEndpointInput> = {};
  if (want.url !== actual.url) update.url = want.url;
  if (want.description !== actual.description) update.description = want.description;
  if (want.enabled !== actual.enabled) update.enabled = want.enabled;
  const sorted = (a: string[]) => [...a].sort().join(",");
  if (sorted(want.event_types) !== sorted(actual.event_types)) update.event_types = want.event_types;
  return update;
}

export function webhookEndpointReconciler(deps: Deps): Reconciler<WebhookEndpointObject> {
  const secrets = new SecretWriter(deps.kubeConfig);

  return ownedResourceReconciler({
    kind: "WebhookEndpoint",
    deps,
    parseSpec: (raw) => webhookEndpointSpec.parse(raw),
    created: (status) => !!status.webhookId,
    async cleanUp({ namespace, spec, draft, managed }, orgId) {
      if (orgId && draft.status.webhookId) {
        try {
          await managed.webhooks.delete(orgId, draft.status.webhookId);
        } catch (error) {
          if (!isNotFound(error)) throw error;
        }
      }
      await secrets.deleteIfOurs(namespace, spec.secretName);
    },
    async sync({ object, namespace, spec, draft, orgId, managed }) {
      const want = desired(spec);
      const rotation = object.metadata?.annotations?.[rotateSigningSecretAnnotation];

      try {
        const secret = await secrets.read(namespace, spec.secretName);
        // A status lost after a create (e.g. a conflict on the status write) is recovered from the
        // Secret's annotation, so the endpoint is never created twice.
        const knownId = draft.status.webhookId ?? secret?.metadata?.annotations?.[cloudIdAnnotation];
        let endpoint: WebhookEndpoint | undefined;
        if (knownId) {
          try {
            endpoint = await managed.webhooks.get(orgId, knownId);
          } catch (error) {
            if (!isNotFound(error)) throw error;
          }
        }
        if (!endpoint) {
          const created = await managed.webhooks.create(orgId, want);
          await secrets.write(object, spec.secretName, created.webhook.id, {
            [signingSecretKey]: created.secret,
          });
          endpoint = created.webhook;
          draft.update({ webhookId: endpoint.id, secretRotation: rotation });
          await deps.events.record(
            object,
            "Normal",
            knownId ? "Recreated" : "Created",
            `Webhook endpoint ${endpoint.id} ${knownId ? "was missing in the Cloud API and was created again" : "created"}; signing secret written to Secret ${spec.secretName}`,
          );
        } else {
          draft.update({ webhookId: endpoint.id });
          const update = endpointDrift(want, endpoint);
          if (Object.keys(update).length > 0) {
            endpoint = (await managed.webhooks.update(orgId, endpoint.id, update)).webhook;
            await deps.events.record(
              object,
              "Normal",
              "Updated",
              `Set ${Object.keys(update).join(", ")} of webhook endpoint ${endpoint.id}`,
            );
          }
          // A new rotation annotation, or a Secret that went missing: only a rotation gives a secret again.
          const secretMissing = !secret?.data?.[signingSecretKey];
          if (rotation !== draft.status.secretRotation || secretMissing) {
            const rotated = await managed.webhooks.rotateSecret(orgId, endpoint.id);
            await secrets.write(object, spec.secretName, endpoint.id, { [signingSecretKey]: rotated.secret });
            draft.update({ secretRotation: rotation });
            await deps.events.record(
              object,
              "Normal",
              "SecretRotated",
              `Signing secret of webhook endpoint ${endpoint.id} rotated${secretMissing ? " (the Secret was missing)" : ""}; written to Secret ${spec.secretName}`,
            );
          }
        }
        const [pending, failed, delivered] = await Promise.all([
          managed.webhooks.deliveries(orgId, endpoint.id, "pending"),
          managed.webhooks.deliveries(orgId, endpoint.id, "failed"),
          managed.webhooks.deliveries(orgId, endpoint.id, "delivered", 1),
        ]);
        draft.update({
          deliveries: {
            pending: pending.length,
            failed: failed.length,
            lastDeliveredAt: delivered[0]?.delivered_at ?? undefined,
            lastFailedAt: failed[0]?.failed_at ?? undefined,
          },
        });
      } catch (error) {
        if (error instanceof SecretNotOursError) return draft.fail("SecretNotOurs", error.message);
        if (isRefusal(error)) return draft.refused(error, orgId);
        throw error;
      }
      draft.set({
        type: "Reconciled",
        status: "True",
        reason: "Synced",
        message: `webhook endpoint ${draft.status.webhookId} matches the spec`,
      });
      const failedCount = draft.status.deliveries?.failed ?? 0;
      if (!spec.enabled)
        draft.set({
          type: "Ready",
          status: "True",
          reason: "Disabled",
          message: "endpoint disabled; deliveries wait until it is enabled",
        });
      else if (failedCount > 0)
        draft.set({
          type: "Ready",
          status: "True",
          reason: "DeliveriesFailed",
          message: `${failedCount} deliveries failed after every attempt`,
        });
      else draft.set({ type: "Ready", status: "True", reason: "Synced", message: "endpoint configured" });
      await draft.write();
    },
  });
}
