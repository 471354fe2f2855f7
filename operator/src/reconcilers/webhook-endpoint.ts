// WebhookEndpoint reconciler: keeps a Cloud API webhook endpoint equal to the spec (creating it,
// repairing changes made elsewhere, recreating it when deleted elsewhere), writes its signing
// secret to the named Secret (the secret leaves the Cloud API only on create and rotate), rotates
// it when the rotation annotation changes, summarises delivery health in status, and on deletion
// removes the endpoint and the Secret before letting the finalizer go.
//
// Exactly one endpoint per resource, whatever fails when (docs/crds.md, "Creation, adoption and
// cleanup"): every endpoint is created for the resource's metadata.uid (`created_for`). A pass that
// knows no endpoint (its create answer lost to a crash before the Secret was written) first looks
// for one made for this uid and adopts it (a rotation gives its secret again) instead of making a
// second; the others made for it are deleted, and on deletion all of them are. Nothing is created
// while a Secret of that name the operator did not make is in the way.
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
import { cloudIdAnnotation, isOurs, SecretNotOursError, SecretWriter } from "../kube/secrets.js";
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

/** Deletes an endpoint; one already gone is fine. */
async function deleteEndpoint(
  cloud: { webhooks: { delete(o: string, id: string): Promise<void> } },
  orgId: string,
  id: string,
) {
  try {
    await cloud.webhooks.delete(orgId, id);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

export function webhookEndpointReconciler(deps: Deps): Reconciler<WebhookEndpointObject> {
  const secrets = new SecretWriter(deps.kubeConfig);

  return ownedResourceReconciler({
    kind: "WebhookEndpoint",
    deps,
    parseSpec: (raw) => webhookEndpointSpec.parse(raw),
    created: (status) => !!status.webhookId,
    async cleanUp({ object, namespace, spec, draft, managed }, orgId) {
      if (orgId) {
        // The status's endpoint, and any made for this resource whose create answer was lost.
        const made = await managed.webhooks.createdFor(orgId, object.metadata!.uid!);
        const ids = new Set([draft.status.webhookId, ...made.map((e) => e.id)]);
        for (const id of ids) if (id) await deleteEndpoint(managed, orgId, id);
      }
      await secrets.deleteIfOurs(namespace, spec.secretName);
    },
    async sync({ object, namespace, spec, draft, orgId, managed }) {
      const want = desired(spec);
      const rotation = object.metadata?.annotations?.[rotateSigningSecretAnnotation];

      try {
        const secret = await secrets.read(namespace, spec.secretName);
        // An endpoint made now could not hand its secret to anyone: nothing is created.
        if (secret && !isOurs(secret)) throw new SecretNotOursError(spec.secretName);
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
          // One made for this resource whose create answer was lost is adopted (the oldest); the rest deleted.
          const [adopted, ...extra] = await managed.webhooks.createdFor(orgId, object.metadata!.uid!);
          for (const e of extra) await deleteEndpoint(managed, orgId, e.id);
          const created = adopted
            ? await managed.webhooks.rotateSecret(orgId, adopted.id)
            : await managed.webhooks.create(orgId, want, object.metadata!.uid!);
          await secrets.write(object, spec.secretName, created.webhook.id, {
            [signingSecretKey]: created.secret,
          });
          endpoint = created.webhook;
          draft.update({ webhookId: endpoint.id, secretRotation: rotation });
          const update = endpointDrift(want, endpoint);
          if (Object.keys(update).length > 0)
            endpoint = (await managed.webhooks.update(orgId, endpoint.id, update)).webhook;
          await deps.events.record(
            object,
            "Normal",
            adopted ? "Adopted" : knownId ? "Recreated" : "Created",
            `Webhook endpoint ${endpoint.id} ${adopted ? "made by an earlier pass was adopted (its signing secret rotated)" : knownId ? "was missing in the Cloud API and was created again" : "created"}; signing secret written to Secret ${spec.secretName}`,
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
        if (error instanceof SecretNotOursError) return draft.fail(error.reason, error.message);
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
