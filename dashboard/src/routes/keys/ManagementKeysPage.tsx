import { Checkbox, Code, Fieldset, NativeSelect, Stack, Text, Title } from "@mantine/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { apiKeyEnvironments, scopes as wireScopes, type ApiKey } from "@countersign/protocol/wire";
import { apiKeyKeys, apiKeysApi } from "../../api/api-keys.js";
import { useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { ActionButton } from "../../components/ActionButton.js";
import { ActionForm, choice, choices, Field, field } from "../../components/ActionForm.js";
import { CopyOnce } from "../../components/CopyOnce.js";
import { DataTable } from "../../components/DataTable.js";
import { EmptyState } from "../../components/EmptyState.js";
import { Loaded, LoadingLine } from "../../components/Loading.js";
import { PageHeader } from "../../components/PageHeader.js";
import { StatusBadge } from "../../components/StatusBadge.js";
import { When } from "../../components/When.js";

/** The scopes a management key may carry (SPEC 5.2), with what each lets a script do. */
const scopes: { scope: string; means: string }[] = [
  { scope: "read", means: "read the organization, agents, tools, policies, actions, overview and usage" },
  { scope: "approvals:read", means: "read approval requests" },
  { scope: "receipts:read", means: "read receipts and download their bundles" },
  { scope: "agents:write", means: "create and change agents, end observe windows" },
  { scope: "tools:write", means: "create and change MCP servers and tools" },
  { scope: "policies:write", means: "create policies, versions, examples and Shadow" },
];

const description =
  "Keys for scripts and CI calling the Cloud API. A key does only what its scopes allow; its secret is shown once, when it is made.";

/** Management keys for scripts and CI (owners and admins): scopes chosen at creation, the secret shown once. */
export function ManagementKeysPage() {
  const { orgId, org } = useCurrentOrganization();
  const queryClient = useQueryClient();
  const mayAdminister = !!org && can.administer(org.role);
  const keys = useQuery({ ...apiKeysApi.listQuery(orgId, "management"), enabled: mayAdminister });
  const [secret, setSecret] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: apiKeyKeys.all(orgId) });
  if (!org) return <LoadingLine />;
  if (!mayAdminister)
    return (
      <Stack>
        <PageHeader title="Management keys" description={description} />
        <Text>Only owners and admins see and make management keys.</Text>
      </Stack>
    );
  return (
    <Stack gap="lg">
      <PageHeader title="Management keys" description={description} />
      <Loaded query={keys}>
        {(page) => (
          <DataTable<ApiKey>
            testId="management-keys"
            caption="Management keys"
            rows={page.items}
            rowKey={(k) => k.id}
            defaultSort={{ key: "created", descending: true }}
            empty={
              <EmptyState title="No management keys yet.">
                Create one with the form below, with only the scopes its script needs.
              </EmptyState>
            }
            columns={[
              { key: "name", header: "Name", render: (k) => k.name, sortValue: (k) => k.name },
              {
                key: "key",
                header: "Key",
                render: (k) => (
                  <Code>
                    svc_{k.environment}_{k.prefix}_…
                  </Code>
                ),
              },
              { key: "scopes", header: "Scopes", render: (k) => k.scopes.join(", ") },
              {
                key: "state",
                header: "State",
                render: (k) => <StatusBadge status={k.state} />,
                sortValue: (k) => k.state,
              },
              {
                key: "created",
                header: "Created",
                align: "right",
                render: (k) => <When at={k.created_at} />,
                sortValue: (k) => k.created_at,
              },
              {
                key: "used",
                header: "Last used",
                align: "right",
                render: (k) => (k.last_used_at ? <When at={k.last_used_at} /> : "never"),
                sortValue: (k) => k.last_used_at,
              },
              {
                key: "revoke",
                header: "Revoke",
                align: "right",
                render: (k) =>
                  k.state === "active" && (
                    <ActionButton
                      size="xs"
                      variant="default"
                      onClick={() => apiKeysApi.revoke(orgId, k.id).then(refresh)}
                      confirm={{
                        title: `Revoke ${k.name}?`,
                        consequence: `Every script using ${k.name} is refused from now on (401); a revoked key never works again.`,
                        confirmLabel: "Revoke the key",
                      }}
                    >
                      Revoke {k.name}
                    </ActionButton>
                  ),
              },
            ]}
          />
        )}
      </Loaded>
      {secret && (
        <CopyOnce label="New management key." secret={secret} hint="store it where the script reads it." />
      )}
      <Stack component="section" aria-labelledby="new-key-heading" gap="sm" maw={640}>
        <Title order={2} size="h3" id="new-key-heading">
          New management key
        </Title>
        <ActionForm
          submit="Create management key"
          onSubmit={async (d) => {
            setSecret(null);
            const created = await apiKeysApi.create(orgId, {
              name: field(d, "name"),
              kind: "management",
              environment: choice(d, "environment", apiKeyEnvironments),
              scopes: choices(d, "scopes", wireScopes),
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
          />
          <Fieldset legend="Scopes (at least one)" variant="unstyled">
            <Stack gap={6} mt={4}>
              {scopes.map((s) => (
                <Checkbox
                  key={s.scope}
                  name="scopes"
                  value={s.scope}
                  defaultChecked={s.scope === "read"}
                  label={
                    <>
                      <Code>{s.scope}</Code>{" "}
                      <Text span size="sm" c="dimmed">
                        {s.means}
                      </Text>
                    </>
                  }
                />
              ))}
            </Stack>
          </Fieldset>
        </ActionForm>
      </Stack>
    </Stack>
  );
}
