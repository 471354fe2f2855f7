import { Anchor, Checkbox, NativeSelect, Paper, Stack } from "@mantine/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useSearchParams } from "react-router";
import { mcpServersApi, mcpServerKeys } from "../../api/mcp-servers.js";
import { toolsApi, toolKeys } from "../../api/tools.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { ActionForm, field } from "../../components/ActionForm.js";
import { EmptyState } from "../../components/EmptyState.js";
import { Loaded } from "../../components/Loading.js";
import { PageHeader } from "../../components/PageHeader.js";
import { kindName } from "../mcp-servers/server-words.js";
import { toolBody, ToolFields, toolRefusalFields } from "./ToolFields.js";

/** A new tool: a draft, or enabled at once when an owner or admin says so. */
export function NewToolPage() {
  const { orgId, org } = useCurrentOrganization();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const servers = useQuery({
    queryKey: mcpServerKeys.all(orgId),
    queryFn: () => mcpServersApi.list(orgId),
  });
  const admin = !!org && can.administer(org.role);
  return (
    <Stack gap="lg">
      <PageHeader
        title="New tool"
        description={
          admin
            ? "What agents call, bound to a tool of a server or integration. Enabled at once if you say so, which authorizes what it is bound to; otherwise a draft."
            : "What agents call, bound to a tool of a server or integration. It starts as a draft an owner or admin enables."
        }
      />
      {org && !can.manage(org.role) && (
        <EmptyState title="Your role does not create tools.">
          An owner, admin or developer makes them; ask one of them.
        </EmptyState>
      )}
      {org && can.manage(org.role) && (
        <Loaded query={servers}>
          {(page) =>
            page.items.length === 0 ? (
              <EmptyState
                title="Add an MCP server or integration first."
                action={
                  <Anchor component={Link} to={orgPath(orgId, "/mcp-servers")}>
                    Add one under MCP servers
                  </Anchor>
                }
              >
                A tool is bound to a tool of a server, or to your own code (decision only).
              </EmptyState>
            ) : (
              <Paper withBorder p="lg" radius="md">
                <ActionForm
                  submit={admin ? "Create the tool" : "Create the draft"}
                  refusalFields={toolRefusalFields}
                  onSubmit={async (d) => {
                    const tool = await toolsApi.create(orgId, {
                      mcp_server_id: field(d, "mcp_server_id"),
                      ...toolBody(d),
                      ...(admin && d.get("enabled") === "on" ? { enabled: true } : {}),
                    });
                    await queryClient.invalidateQueries({ queryKey: toolKeys.all(orgId) });
                    navigate(orgPath(orgId, `/tools/${tool.id}`));
                  }}
                >
                  <NativeSelect
                    label="Server or integration"
                    name="mcp_server_id"
                    defaultValue={params.get("server") ?? page.items[0]!.id}
                    data={page.items.map((s) => ({ value: s.id, label: `${s.name} (${kindName(s)})` }))}
                  />
                  <ToolFields upstream={params.get("upstream") ?? undefined} />
                  {admin && (
                    <Checkbox name="enabled" label="Enable it now (authorizes what it is bound to)" />
                  )}
                </ActionForm>
              </Paper>
            )
          }
        </Loaded>
      )}
    </Stack>
  );
}
