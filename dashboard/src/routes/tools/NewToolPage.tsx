import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useNavigate, useSearchParams } from "react-router";
import { mcpServersApi, mcpServerKeys } from "../../api/mcp-servers.js";
import { toolsApi, toolKeys } from "../../api/tools.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { ActionForm, field } from "../../components/ActionForm.js";
import { Loaded } from "../../components/Loading.js";
import { toolBody, ToolFields } from "./ToolFields.js";

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
    <main>
      <h1>New tool</h1>
      {org && !can.manage(org.role) && <p className="muted">Your role does not create tools.</p>}
      {org && can.manage(org.role) && (
        <Loaded query={servers}>
          {(page) =>
            page.items.length === 0 ? (
              <p className="muted">Add an MCP server or integration first.</p>
            ) : (
              <ActionForm
                submit={admin ? "Create the tool" : "Create the draft"}
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
                <label>
                  Server or integration
                  <select name="mcp_server_id" defaultValue={params.get("server") ?? page.items[0]!.id}>
                    {page.items.map((s) => (
                      <option key={s.id} value={s.id}>
                        {s.name} ({s.kind === "mcp" ? "MCP server" : "decision-only"})
                      </option>
                    ))}
                  </select>
                </label>
                <ToolFields upstream={params.get("upstream") ?? undefined} />
                {admin && (
                  <label className="inline">
                    <input type="checkbox" name="enabled" /> Enable it now (authorizes what it is bound to)
                  </label>
                )}
              </ActionForm>
            )
          }
        </Loaded>
      )}
    </main>
  );
}
