import { Code, NativeSelect, Paper, Stack, Title } from "@mantine/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { apiKeyEnvironments, type ApiKey } from "@countersign/protocol/wire";
import { apiKeyKeys, apiKeysApi } from "../../api/api-keys.js";
import { ActionButton } from "../../components/ActionButton.js";
import { ActionForm, choice, Field, field } from "../../components/ActionForm.js";
import { CopyOnce } from "../../components/CopyOnce.js";
import { DataTable } from "../../components/DataTable.js";
import { EmptyState } from "../../components/EmptyState.js";
import { Loaded } from "../../components/Loading.js";
import { StatusBadge } from "../../components/StatusBadge.js";
import { When } from "../../components/When.js";
import { ConnectAgent } from "./connect/ConnectAgent.js";

/** The agent's gateway keys: the secret is shown once, at creation, with the snippets that use it. */
export function GatewayKeys({ orgId, agentId }: { orgId: string; agentId: string }) {
  const queryClient = useQueryClient();
  const keys = useQuery(apiKeysApi.listQuery(orgId, "gateway"));
  const [secret, setSecret] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: apiKeyKeys.all(orgId) });
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="gateway-keys-title">
      <Stack gap="md">
        <Title order={2} size="h3" id="gateway-keys-title">
          Gateway keys
        </Title>
        <Loaded query={keys}>
          {(page) => (
            <DataTable<ApiKey>
              testId="gateway-keys"
              caption="The agent's gateway keys"
              rows={page.items.filter((k) => k.agent_id === agentId)}
              rowKey={(k) => k.id}
              columns={[
                { key: "name", header: "Name", render: (k) => k.name },
                {
                  key: "prefix",
                  header: "Key",
                  render: (k) => (
                    <Code>
                      svc_{k.environment}_{k.prefix}_…
                    </Code>
                  ),
                },
                {
                  key: "state",
                  header: "State",
                  render: (k) => <StatusBadge status={String(k.state ?? "active")} />,
                },
                {
                  key: "created",
                  header: "Created",
                  align: "right",
                  render: (k) => <When at={k.created_at} />,
                },
                {
                  key: "revoke",
                  header: "Action",
                  render: (k) =>
                    k.state === "active" && (
                      <ActionButton
                        size="xs"
                        variant="light"
                        color="red"
                        onClick={() => apiKeysApi.revoke(orgId, k.id).then(refresh)}
                        confirm={{
                          title: `Revoke ${k.name}`,
                          consequence:
                            "The agent's calls with this key are refused from now on (401), on every Gateway replica. This cannot be undone: the agent needs a new key.",
                          confirmLabel: "Revoke",
                        }}
                      >
                        Revoke
                      </ActionButton>
                    ),
                },
              ]}
              empty={
                <EmptyState title="No gateway key yet">
                  The agent cannot reach the Gateway. Create a key with the form below.
                </EmptyState>
              }
            />
          )}
        </Loaded>
        {secret && <CopyOnce label="New gateway key." secret={secret} />}
        <ActionForm
          submit="Create gateway key"
          onSubmit={async (d) => {
            const created = await apiKeysApi.create(orgId, {
              name: field(d, "name"),
              kind: "gateway",
              environment: choice(d, "environment", apiKeyEnvironments),
              agent_id: agentId,
            });
            setSecret(created.secret);
            await refresh();
          }}
        >
          <Field label="Key name" name="name" maxLength={200} />
          <NativeSelect
            label="Environment"
            name="environment"
            defaultValue="live"
            data={[...apiKeyEnvironments]}
            description="A label recorded on every action and in its evidence; test and live keys reach the same tools."
            maw={240}
          />
        </ActionForm>
        <ConnectAgent orgId={orgId} gatewayKey={secret} />
      </Stack>
    </Paper>
  );
}
