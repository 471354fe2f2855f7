import { Anchor, Button, Code, Group, Paper, Stack, Text, Title } from "@mantine/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { WebhookEndpoint } from "@countersign/protocol/wire";
import { useState } from "react";
import { Link } from "react-router";
import { webhooksApi, webhookKeys } from "../../api/webhooks.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { ActionForm, Field, field } from "../../components/ActionForm.js";
import { CopyOnce } from "../../components/CopyOnce.js";
import { DataTable } from "../../components/DataTable.js";
import { EmptyState } from "../../components/EmptyState.js";
import { Loaded } from "../../components/Loading.js";
import { PageHeader } from "../../components/PageHeader.js";
import { EventTypes, eventTypesOf } from "./EventTypes.js";
import { EndpointState } from "./EndpointState.js";

const SECRET_HINT = "the receiver checks every delivery's Service-Signature with it.";

/** The organization's webhook endpoints (owners, admins, developers) and the form to add one. */
export function WebhooksPage() {
  const { orgId, org } = useCurrentOrganization();
  const endpoints = useQuery({ queryKey: webhookKeys.all(orgId), queryFn: () => webhooksApi.list(orgId) });
  const [created, setCreated] = useState<{ id: string; secret: string } | null>(null);
  const mayAdd = !!org && can.manage(org.role);
  return (
    <Stack gap="lg">
      <PageHeader
        title="Webhooks"
        description="Endpoints receive the organization's events as they happen, each delivery signed with the endpoint's secret (the Service-Signature header) and retried until it is accepted."
      />
      <Loaded query={endpoints}>
        {(page) => (
          <DataTable<WebhookEndpoint>
            testId="webhook-endpoints"
            caption="Webhook endpoints"
            rows={page.items}
            rowKey={(e) => e.id}
            defaultSort={{ key: "url", descending: false }}
            empty={
              <EmptyState title="No endpoints yet.">
                {mayAdd
                  ? "Add one with the form below: it receives the events you choose, signed."
                  : "An owner, admin or developer adds them."}
              </EmptyState>
            }
            columns={[
              {
                key: "url",
                header: "URL",
                sortValue: (e) => e.url,
                render: (e) => (
                  <Stack gap={0}>
                    <Anchor component={Link} to={orgPath(orgId, `/webhooks/${e.id}`)}>
                      {e.url}
                    </Anchor>
                    {e.description && (
                      <Text size="xs" c="dimmed">
                        {e.description}
                      </Text>
                    )}
                  </Stack>
                ),
              },
              {
                key: "enabled",
                header: "State",
                sortValue: (e) => (e.enabled ? 0 : 1),
                render: (e) => <EndpointState endpoint={e} />,
              },
              {
                key: "event_types",
                header: "Event types",
                render: (e) => (
                  <Group gap={4}>
                    {e.event_types.map((t) => (
                      <Code key={t}>{t}</Code>
                    ))}
                  </Group>
                ),
              },
            ]}
          />
        )}
      </Loaded>
      {created && (
        <Stack gap="xs" align="flex-start">
          <CopyOnce label="Signing secret of the new endpoint." secret={created.secret} hint={SECRET_HINT} />
          <Button component={Link} to={orgPath(orgId, `/webhooks/${created.id}`)} variant="light">
            Open the new endpoint
          </Button>
        </Stack>
      )}
      {mayAdd && <NewEndpoint orgId={orgId} onCreated={setCreated} />}
    </Stack>
  );
}

function NewEndpoint({
  orgId,
  onCreated,
}: {
  orgId: string;
  onCreated: (c: { id: string; secret: string }) => void;
}) {
  const queryClient = useQueryClient();
  return (
    <Paper withBorder p="lg" maw={720}>
      <Stack gap="sm">
        <Title order={2} size="h3">
          New endpoint
        </Title>
        <ActionForm
          submit="Add endpoint"
          onSubmit={async (d) => {
            const answer = await webhooksApi.create(orgId, {
              url: field(d, "url"),
              description: field(d, "description"),
              event_types: eventTypesOf(d),
            });
            onCreated({ id: answer.webhook.id, secret: answer.secret });
            await queryClient.invalidateQueries({ queryKey: webhookKeys.all(orgId) });
          }}
        >
          <Field
            label="URL (public https)"
            name="url"
            type="url"
            placeholder="https://example.com/countersign"
            subject="The URL"
          />
          <Field label="Description" name="description" required={false} />
          <EventTypes />
        </ActionForm>
      </Stack>
    </Paper>
  );
}
