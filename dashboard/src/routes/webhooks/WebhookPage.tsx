import { Checkbox, Code, Paper, Stack, Text, Title } from "@mantine/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { WebhookEndpoint } from "@countersign/protocol/wire";
import { useState, type ReactNode } from "react";
import { useNavigate, useParams } from "react-router";
import { webhooksApi, webhookKeys } from "../../api/webhooks.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { ActionButton } from "../../components/ActionButton.js";
import { ActionForm, Field, field } from "../../components/ActionForm.js";
import { CopyOnce } from "../../components/CopyOnce.js";
import { Loaded } from "../../components/Loading.js";
import { PageHeader } from "../../components/PageHeader.js";
import { When } from "../../components/When.js";
import { DeliveryLog } from "./DeliveryLog.js";
import { EndpointState } from "./EndpointState.js";
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
  const e = endpoint.data;
  return (
    <Stack gap="lg">
      <PageHeader
        title="Webhook endpoint"
        badge={e && <EndpointState endpoint={e} testId="endpoint-enabled" />}
        description={
          e && (
            <>
              <Code>{e.url}</Code>
              {e.description && <> · {e.description}</>}
            </>
          )
        }
      />
      <Loaded query={endpoint}>
        {(e) => (
          <>
            <KubernetesManaged managedBy={e.managed_by} editable />
            <DeliveryLog orgId={orgId} endpoint={e} />
            <EndpointSettings orgId={orgId} endpoint={e} />
            <SigningSecret orgId={orgId} endpoint={e} />
            <DeleteEndpoint orgId={orgId} endpoint={e} />
          </>
        )}
      </Loaded>
    </Stack>
  );
}

/** A part of the endpoint's page: a card with its h2. */
function Part({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Paper withBorder p="lg" component="section">
      <Stack gap="sm">
        <Title order={2} size="h3">
          {title}
        </Title>
        {children}
      </Stack>
    </Paper>
  );
}

function EndpointSettings({ orgId, endpoint }: { orgId: string; endpoint: WebhookEndpoint }) {
  const queryClient = useQueryClient();
  return (
    <Part title="Settings">
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
        <Field
          label="URL (public https)"
          name="url"
          type="url"
          defaultValue={endpoint.url}
          subject="The URL"
        />
        <Field label="Description" name="description" required={false} defaultValue={endpoint.description} />
        <Checkbox
          name="enabled"
          label="Enabled"
          description="A disabled endpoint gets no new events; its pending deliveries wait until it is enabled again."
          defaultChecked={endpoint.enabled}
        />
        <EventTypes selected={endpoint.event_types} />
      </ActionForm>
    </Part>
  );
}

function SigningSecret({ orgId, endpoint }: { orgId: string; endpoint: WebhookEndpoint }) {
  const queryClient = useQueryClient();
  const [secret, setSecret] = useState<string | null>(null);
  return (
    <Part title="Signing secret">
      <Text size="sm" c="dimmed">
        Every delivery carries a Service-Signature made with this secret; the receiver checks it before
        trusting the event. The secret was shown once, when the endpoint was made.
      </Text>
      {endpoint.previous_secret_expires_at && (
        <Text size="sm">
          The previous secret also signs deliveries until <When at={endpoint.previous_secret_expires_at} />.
        </Text>
      )}
      {secret && (
        <CopyOnce
          label="New signing secret."
          secret={secret}
          hint="the previous one keeps signing for 24 hours, so the receiver can switch."
        />
      )}
      <ActionButton
        variant="default"
        confirm={{
          title: "Rotate the signing secret",
          consequence:
            "In 24 hours the current secret stops signing deliveries: until then both sign, and the receiver must check with the new secret before that, or it will refuse every event.",
          confirmLabel: "Make a new secret",
        }}
        onClick={async () => {
          const answer = await webhooksApi.rotate(orgId, endpoint.id);
          setSecret(answer.secret);
          await queryClient.invalidateQueries({ queryKey: webhookKeys.one(endpoint.id) });
        }}
      >
        Rotate the secret
      </ActionButton>
    </Part>
  );
}

function DeleteEndpoint({ orgId, endpoint }: { orgId: string; endpoint: WebhookEndpoint }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return (
    <Part title="Delete">
      <Text size="sm" c="dimmed">
        To pause deliveries instead, clear Enabled above.
      </Text>
      <ActionButton
        color="red"
        variant="light"
        confirm={{
          title: "Delete the endpoint",
          consequence:
            "No event is sent to this address any more, and the endpoint's deliveries and their log are deleted for good. This cannot be undone.",
          confirmLabel: "Delete the endpoint",
        }}
        onClick={async () => {
          await webhooksApi.remove(orgId, endpoint.id);
          await queryClient.invalidateQueries({ queryKey: webhookKeys.all(orgId) });
          navigate(orgPath(orgId, "/webhooks"));
        }}
      >
        Delete the endpoint
      </ActionButton>
    </Part>
  );
}
