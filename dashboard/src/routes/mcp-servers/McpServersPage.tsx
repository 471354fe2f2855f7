import { Anchor, Code, NativeSelect, Paper, Stack, Text, Title } from "@mantine/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { mcpServerKinds, type McpServer } from "@countersign/protocol/wire";
import { mcpServersApi, mcpServerKeys } from "../../api/mcp-servers.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { ActionForm, Field, field } from "../../components/ActionForm.js";
import { DataTable } from "../../components/DataTable.js";
import { EmptyState } from "../../components/EmptyState.js";
import { Loaded } from "../../components/Loading.js";
import { PageHeader } from "../../components/PageHeader.js";
import { StatusBadge } from "../../components/StatusBadge.js";
import { CredentialState } from "./CredentialState.js";
import { kindName, serverRefusalFields } from "./server-words.js";

/** The organization's MCP servers and decision-only integrations, and the form to add one. */
export function McpServersPage() {
  const { orgId, org } = useCurrentOrganization();
  const servers = useQuery({
    queryKey: mcpServerKeys.all(orgId),
    queryFn: () => mcpServersApi.list(orgId),
  });
  const writer = !!org && can.manage(org.role);
  return (
    <Stack gap="lg">
      <PageHeader
        title="MCP servers and integrations"
        description="An MCP server is called by the Gateway on the agent's behalf; a decision-only integration is executed by its caller, which asks the Gateway first."
      />
      <Loaded query={servers}>
        {(page) => (
          <DataTable
            testId="mcp-servers"
            caption="MCP servers and integrations"
            rows={page.items}
            rowKey={(s) => s.id}
            defaultSort={{ key: "name", descending: false }}
            columns={serverColumns(orgId)}
            empty={
              <EmptyState title="No MCP servers or integrations yet.">
                {writer
                  ? "Add the server your agents' tools run on (or your own code, decision only) with the form below; its tools come next."
                  : "An owner, admin or developer adds them; their tools come next."}
              </EmptyState>
            }
          />
        )}
      </Loaded>
      {writer && <NewServer orgId={orgId} />}
    </Stack>
  );
}

const serverColumns = (orgId: string) => [
  {
    key: "name",
    header: "Name",
    sortValue: (s: McpServer) => s.name,
    render: (s: McpServer) => (
      <Anchor component={Link} to={orgPath(orgId, `/mcp-servers/${s.id}`)}>
        {s.name}
      </Anchor>
    ),
  },
  { key: "kind", header: "Kind", sortValue: (s: McpServer) => s.kind, render: (s: McpServer) => kindName(s) },
  {
    key: "status",
    header: "Status",
    sortValue: (s: McpServer) => s.status,
    render: (s: McpServer) => <StatusBadge status={s.status} />,
  },
  {
    key: "url",
    header: "URL",
    sortValue: (s: McpServer) => s.url,
    render: (s: McpServer) =>
      s.url ? (
        <Code>{s.url}</Code>
      ) : (
        <Text span c="dimmed" size="sm">
          none
        </Text>
      ),
  },
  {
    key: "credential",
    header: "Authorization header",
    render: (s: McpServer) => <CredentialState credential={s.credential} />,
  },
];

function NewServer({ orgId }: { orgId: string }) {
  const [kind, setKind] = useState<McpServer["kind"]>("mcp");
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="new-server">
      <Title order={2} size="h3" id="new-server" mb="sm">
        Add one
      </Title>
      <ActionForm
        submit={kind === "mcp" ? "Add MCP server" : "Add integration"}
        refusalFields={serverRefusalFields}
        onSubmit={async (d) => {
          const authorization = field(d, "authorization");
          const created = await mcpServersApi.create(
            orgId,
            kind === "mcp"
              ? {
                  kind,
                  name: field(d, "name"),
                  url: field(d, "url"),
                  ...(authorization ? { authorization } : {}),
                }
              : { kind, name: field(d, "name") },
          );
          await queryClient.invalidateQueries({ queryKey: mcpServerKeys.all(orgId) });
          navigate(orgPath(orgId, `/mcp-servers/${created.id}`));
        }}
      >
        <NativeSelect
          label="Who executes calls"
          name="kind"
          value={kind}
          onChange={(e) => setKind(mcpServerKinds.find((k) => k === e.currentTarget.value) ?? "mcp")}
          data={[
            { value: "mcp", label: "An MCP server (the Gateway calls it)" },
            // SPEC 1, setup step 4 names this choice.
            { value: "decision_only", label: "Your code (decision only)" },
          ]}
        />
        <Field label="Name" name="name" maxLength={200} />
        {kind === "mcp" && (
          <>
            <Field
              label="URL (public https)"
              name="url"
              type="url"
              description={
                <span data-testid="url-rule">
                  In production the Gateway calls only public https addresses. Where the installation allows
                  loopback (<Code>make run</Code>), a server on the same machine may be plain http, such as{" "}
                  <Code>http://127.0.0.1:3001/mcp</Code>.
                </span>
              }
            />
            <Field
              label="Authorization header sent upstream (optional, never shown again)"
              subject="The authorization header"
              name="authorization"
              type="password"
              required={false}
              autoComplete="off"
              description="For example Bearer …; stored encrypted, and only ever sent to this server."
            />
          </>
        )}
      </ActionForm>
    </Paper>
  );
}
