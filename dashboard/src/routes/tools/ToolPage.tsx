import { Anchor, Code, Paper, Stack, Text, Title } from "@mantine/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { Tool } from "@countersign/protocol/wire";
import { Link, useParams } from "react-router";
import { toolsApi, toolKeys } from "../../api/tools.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { Facts } from "../../components/Facts.js";
import { ActionForm } from "../../components/ActionForm.js";
import { JsonBlock } from "../../components/JsonBlock.js";
import { KubernetesManaged } from "../../components/KubernetesManaged.js";
import { Loaded } from "../../components/Loading.js";
import { PageHeader } from "../../components/PageHeader.js";
import { ToolAuthorization } from "./ToolAuthorization.js";
import { ToolDeclaration } from "./ToolDeclaration.js";
import { toolChanges, ToolFields, toolRefusalFields } from "./ToolFields.js";
import { ToolState } from "./ToolState.js";

/** One tool: what it exposes and runs, its binding, enabling and authorizing it. */
export function ToolPage() {
  const { orgId, org } = useCurrentOrganization();
  const { toolId = "" } = useParams();
  const tool = useQuery({ queryKey: toolKeys.one(toolId), queryFn: () => toolsApi.get(orgId, toolId) });
  const role = org?.role ?? "viewer";
  return (
    <Loaded query={tool}>
      {(t) => (
        <Stack gap="lg">
          <PageHeader
            title={`Tool ${t.exposed_name}`}
            badge={<ToolState tool={t} />}
            description={t.description ?? undefined}
          />
          <KubernetesManaged managedBy={t.managed_by} editable={can.manage(role)} />
          <Facts
            items={[
              {
                term: "Server",
                value: (
                  <Anchor component={Link} to={orgPath(orgId, `/mcp-servers/${t.mcp_server_id}`)}>
                    open the server
                  </Anchor>
                ),
              },
              { term: "Upstream tool", value: <Code>{t.upstream_name}</Code> },
              { term: "Action", value: <Code>{t.action}</Code> },
              { term: "Amount mapping", value: <AmountMapping tool={t} /> },
            ]}
          />
          <Stack gap="xs">
            <Title order={2} size="h3">
              Input schema
            </Title>
            <JsonBlock value={t.input_schema} label="Input schema" />
          </Stack>
          <ToolDeclaration tool={t} />
          <ToolAuthorization orgId={orgId} tool={t} role={role} />
          {can.manage(role) && <EditTool orgId={orgId} tool={t} />}
        </Stack>
      )}
    </Loaded>
  );
}

function AmountMapping({ tool }: { tool: Tool }) {
  const m = tool.amount_mapping;
  if (!m)
    return (
      <Text span c="dimmed" size="sm">
        none (policies see no amount)
      </Text>
    );
  return (
    <Code>
      amount at {m.amount_path}, {m.currency ? `currency ${m.currency}` : `currency at ${m.currency_path}`}
    </Code>
  );
}

function EditTool({ orgId, tool }: { orgId: string; tool: Tool }) {
  const queryClient = useQueryClient();
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="edit-tool">
      <Stack gap="sm">
        <Title order={2} size="h3" id="edit-tool">
          Edit
        </Title>
        {tool.enabled && (
          <Text c="dimmed" size="sm">
            The tool is enabled: changing its upstream tool, action, schema or amount mapping needs an owner
            or admin, and needs re-authorization before the Gateway runs it again.
          </Text>
        )}
        <ActionForm
          key={tool.updated_at}
          submit="Save the tool"
          refusalFields={toolRefusalFields}
          onSubmit={async (d) => {
            const changes = toolChanges(d, tool);
            if (Object.keys(changes).length === 0) return;
            await toolsApi.update(orgId, tool.id, changes);
            await queryClient.invalidateQueries({ queryKey: toolKeys.one(tool.id) });
            await queryClient.invalidateQueries({ queryKey: toolKeys.all(orgId) });
          }}
        >
          <ToolFields tool={tool} />
        </ActionForm>
      </Stack>
    </Paper>
  );
}
