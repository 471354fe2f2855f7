import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { WebhookEndpoint } from "@countersign/protocol/wire";
import { useState } from "react";
import { useNavigate, useParams } from "react-router";
import { webhooksApi, webhookKeys } from "../../api/webhooks.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { ActionButton } from "../../components/ActionButton.js";
import { ActionForm, Field, field } from "../../components/ActionForm.js";
import { CopyOnce } from "../../components/CopyOnce.js";
import { Loaded } from "../../components/Loading.js";
import { When } from "../../components/When.js";
import { DeliveryLog } from "./DeliveryLog.js";
import { EventTypes, eventTypesOf } from "./EventTypes.js";
import { KubernetesManaged } from "../../components/KubernetesManaged.js";

/** One endpoint: the delivery log and a test event first, then its settings and its secret (rotated, shown once). */
export function WebhookPage() {
  const { orgId } = useCurrentOrganization();
  const { webhookId = "" } = useParams();
  const endpoint = useQuery({
    queryKey: webhookKeys.one(webhookId),
    queryFn: () => webhooksApi.get(orgId, webhookId),
  });
  return (
    <main>
      <Loaded query={endpoint}>
        {(e) => (
          <>
            <h1>Webhook endpoint</h1>
            <KubernetesManaged managedBy={e.managed_by} editable />
            <p>
              <code>{e.url}</code>{" "}
              <span data-testid="endpoint-enabled">{e.enabled ? "enabled" : "disabled"}</span>
              {e.disabled_reason && <span className="muted"> ({e.disabled_reason.replace(/_/g, " ")})</span>}
            </p>
            <DeliveryLog orgId={orgId} endpoint={e} />
            <EndpointSettings orgId={orgId} endpoint={e} />
            <SigningSecret orgId={orgId} endpoint={e} />
            <DeleteEndpoint orgId={orgId} endpoint={e} />
          </>
        )}
      </Loaded>
    </main>
  );
}

function EndpointSettings({ orgId, endpoint }: { orgId: string; endpoint: WebhookEndpoint }) {
  const queryClient = useQueryClient();
  return (
    <section>
      <h2>Settings</h2>
      <ActionForm
        key={endpoint.updated_at}
        submit="Save the endpoint"
        onSubmit={async (d) => {
          await webhooksApi.update(orgId, endpoint.id, {
            url: field(d, "url"),
            description: field(d, "description"),
            enabled: d.get("enabled") === "on",
            event_types: eventTypesOf(d),
          });
          await queryClient.invalidateQueries({ queryKey: webhookKeys.one(endpoint.id) });
          await queryClient.invalidateQueries({ queryKey: webhookKeys.all(orgId) });
        }}
      >
        <Field label="URL (public https)" name="url" type="url" defaultValue={endpoint.url} />
        <Field label="Description" name="description" required={false} defaultValue={endpoint.description} />
        <label className="inline">
          <input type="checkbox" name="enabled" defaultChecked={endpoint.enabled} /> Enabled (a disabled
          endpoint gets no new events; its pending deliveries wait)
        </label>
        <EventTypes selected={endpoint.event_types} />
      </ActionForm>
    </section>
  );
}

function SigningSecret({ orgId, endpoint }: { orgId: string; endpoint: WebhookEndpoint }) {
  const queryClient = useQueryClient();
  const [secret, setSecret] = useState<string | null>(null);
  return (
    <section>
      <h2>Signing secret</h2>
      {endpoint.previous_secret_expires_at && (
        <p className="muted">
          The previous secret also signs deliveries until <When at={endpoint.previous_secret_expires_at} />.
        </p>
      )}
      {secret && (
        <CopyOnce
          label="New signing secret."
          secret={secret}
          hint="the previous one keeps signing for 24 hours, so the receiver can switch."
        />
      )}
      <ActionButton
        confirm={{ title: "Rotate the signing secret", consequence: "The current secret stops signing deliveries after 24 hours; receivers must accept the new one before then.", confirmLabel: "Make a new secret", }}
        onClick={async () => {
          const answer = await webhooksApi.rotate(orgId, endpoint.id);
          setSecret(answer.secret);
          await queryClient.invalidateQueries({ queryKey: webhookKeys.one(endpoint.id) });
        }}
      >
        Rotate the secret
      </ActionButton>
    </section>
  );
}

function DeleteEndpoint({ orgId, endpoint }: { orgId: string; endpoint: WebhookEndpoint }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return (
    <section>
      <h2>Delete</h2>
      <ActionButton
        confirm={{ title: "Delete the endpoint", consequence: "No more events are sent here, and the endpoint's deliveries and their log are deleted for good.", confirmLabel: "Delete the endpoint" }}
        onClick={async () => {
          await webhooksApi.remove(orgId, endpoint.id);
          await queryClient.invalidateQueries({ queryKey: webhookKeys.all(orgId) });
          navigate(orgPath(orgId, "/webhooks"));
        }}
      >
        Delete the endpoint
      </ActionButton>
    </section>
  );
}
