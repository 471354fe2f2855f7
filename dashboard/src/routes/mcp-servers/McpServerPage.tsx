import { Code, NativeSelect, Paper, Stack, Text, Title } from "@mantine/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { mcpServerStatuses, type McpServer } from "@countersign/protocol/wire";
import { useNavigate, useParams } from "react-router";
import { mcpServersApi, mcpServerKeys } from "../../api/mcp-servers.js";
import { toolKeys } from "../../api/tools.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { ActionButton } from "../../components/ActionButton.js";
import { ActionForm, choice, Field, field } from "../../components/ActionForm.js";
import { Facts } from "../../components/Facts.js";
import { KubernetesManaged } from "../../components/KubernetesManaged.js";
import { Loaded } from "../../components/Loading.js";
import { PageHeader } from "../../components/PageHeader.js";
import { StatusBadge } from "../../components/StatusBadge.js";
import { When } from "../../components/When.js";
import { ServerTools } from "../tools/ServerTools.js";
import { CredentialForm } from "./CredentialForm.js";
import { CredentialState } from "./CredentialState.js";
import { Discovery } from "./Discovery.js";
import { ServerIdentity } from "./ServerIdentity.js";
import { kindName, serverRefusalFields } from "./server-words.js";

/** One MCP server or integration: its settings, credential, identity, discovery and tools. */
export function McpServerPage() {
  const { orgId, org } = useCurrentOrganization();
  const { serverId = "" } = useParams();
  const server = useQuery({
    queryKey: mcpServerKeys.one(serverId),
    queryFn: () => mcpServersApi.get(orgId, serverId),
  });
  const writer = !!org && can.manage(org.role);
  return (
    <Loaded query={server}>
      {(s) => (
        <Stack gap="lg">
          <PageHeader
            title={s.name}
            badge={<StatusBadge status={s.status} testId="server-status" />}
            description={
              s.kind === "mcp"
                ? "The Gateway calls this server on the agents' behalf, with the header stored here, once a policy allows the call."
                : "Decision-only: the caller executes the action after asking the Gateway, so there is no address, credential or identity, and nothing to discover."
            }
          />
          <KubernetesManaged managedBy={s.managed_by} editable={writer} />
          <Facts
            items={[
              { term: "Kind", value: kindName(s) },
              { term: "URL", value: <Code>{s.url}</Code>, hidden: s.kind !== "mcp" },
              {
                term: "Authorization header",
                value: <CredentialState credential={s.credential} />,
                hidden: s.kind !== "mcp",
              },
              {
                term: "Server identity",
                testId: "server-kid",
                hidden: s.kind !== "mcp",
                value: s.server_kid ? (
                  <Code>{s.server_kid}</Code>
                ) : (
                  <Text span c="dimmed" size="sm">
                    none
                  </Text>
                ),
              },
              { term: "Changed", value: <When at={s.updated_at} /> },
            ]}
          />
          {s.kind === "mcp" && writer && <Discovery orgId={orgId} server={s} />}
          <ServerTools orgId={orgId} server={s} mayCreate={writer} />
          {writer && <ServerSettings orgId={orgId} server={s} />}
          {s.kind === "mcp" && writer && <CredentialForm orgId={orgId} server={s} />}
          {s.kind === "mcp" && <ServerIdentity orgId={orgId} server={s} mayChange={writer} />}
          {writer && <DeleteServer orgId={orgId} server={s} />}
        </Stack>
      )}
    </Loaded>
  );
}

function ServerSettings({ orgId, server }: { orgId: string; server: McpServer }) {
  const queryClient = useQueryClient();
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="settings">
      <Stack gap="sm">
        <Title order={2} size="h3" id="settings">
          Settings
        </Title>
        {server.kind === "mcp" && (
          <Text c="dimmed" size="sm">
            Changing the URL, the authorization header or the identity changes what enabled tools are bound
            to: only an owner or admin may, and those tools then need re-authorization before the Gateway runs
            them again.
          </Text>
        )}
        <ActionForm
          key={server.updated_at}
          submit="Save settings"
          refusalFields={serverRefusalFields}
          onSubmit={async (d) => {
            const url = field(d, "url");
            await mcpServersApi.update(orgId, server.id, {
              name: field(d, "name"),
              status: choice(d, "status", mcpServerStatuses),
              ...(server.kind === "mcp" && url !== server.url ? { url } : {}),
            });
            await queryClient.invalidateQueries({ queryKey: mcpServerKeys.one(server.id) });
            await queryClient.invalidateQueries({ queryKey: mcpServerKeys.all(orgId) });
            await queryClient.invalidateQueries({ queryKey: toolKeys.all(orgId) });
          }}
        >
          <Field label="Name" name="name" maxLength={200} defaultValue={server.name} />
          <NativeSelect
            label="Status"
            name="status"
            defaultValue={server.status}
            data={[...mcpServerStatuses]}
            description="A disabled server's tools are refused by the Gateway until it is active again."
          />
          {server.kind === "mcp" && (
            <Field label="URL (public https)" name="url" type="url" defaultValue={server.url ?? ""} />
          )}
        </ActionForm>
      </Stack>
    </Paper>
  );
}

function DeleteServer({ orgId, server }: { orgId: string; server: McpServer }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const what = server.kind === "mcp" ? "MCP server" : "integration";
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="delete">
      <Stack gap="sm" align="flex-start">
        <Title order={2} size="h3" id="delete">
          Delete
        </Title>
        <Text c="dimmed" size="sm">
          Refused (IN_USE) once its tools have recorded actions; disable it instead.
        </Text>
        <ActionButton
          color="red"
          variant="light"
          confirm={{
            title: `Delete ${server.name}`,
            consequence: `Agents can no longer call the tools of ${server.name}: the ${what} and its tools are deleted, and this cannot be undone.`,
            confirmLabel: `Delete the ${what}`,
          }}
          onClick={async () => {
            await mcpServersApi.remove(orgId, server.id);
            await queryClient.invalidateQueries({ queryKey: mcpServerKeys.all(orgId) });
            await queryClient.invalidateQueries({ queryKey: toolKeys.all(orgId) });
            navigate(orgPath(orgId, "/mcp-servers"));
          }}
        >
          Delete {what}
        </ActionButton>
      </Stack>
    </Paper>
  );
}
