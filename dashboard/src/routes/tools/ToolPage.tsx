import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useParams } from "react-router";
import { toolsApi, toolKeys } from "../../api/tools.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { ActionForm } from "../../components/ActionForm.js";
import { Loaded } from "../../components/Loading.js";
import { ToolAuthorization } from "./ToolAuthorization.js";
import { ToolDeclaration } from "./ToolDeclaration.js";
import { toolChanges, ToolFields } from "./ToolFields.js";
import { ToolState } from "./ToolState.js";
import { KubernetesManaged } from "../../components/KubernetesManaged.js";

/** One tool: what it exposes and runs, its binding, enabling and authorizing it. */
export function ToolPage() {
  const { orgId, org } = useCurrentOrganization();
  const { toolId = "" } = useParams();
  const queryClient = useQueryClient();
  const tool = useQuery({ queryKey: toolKeys.one(toolId), queryFn: () => toolsApi.get(orgId, toolId) });
  const role = org?.role ?? "viewer";
  return (
    <main>
      <Loaded query={tool}>
        {(t) => (
          <>
            <h1>Tool {t.exposed_name}</h1>
            <KubernetesManaged managedBy={t.managed_by} editable={can.manage(role)} />
            <dl className="facts">
              <dt>State</dt>
              <dd>
                <ToolState tool={t} />
              </dd>
              <dt>Server</dt>
              <dd>
                <Link to={orgPath(orgId, `/mcp-servers/${t.mcp_server_id}`)}>open the server</Link>
              </dd>
              <dt>Upstream tool</dt>
              <dd>
                <code>{t.upstream_name}</code>
              </dd>
              <dt>Action</dt>
              <dd>
                <code>{t.action}</code>
              </dd>
              <dt>Amount mapping</dt>
              <dd>
                {t.amount_mapping ? (
                  <code>
                    amount at {t.amount_mapping.amount_path},{" "}
                    {t.amount_mapping.currency
                      ? `currency ${t.amount_mapping.currency}`
                      : `currency at ${t.amount_mapping.currency_path}`}
                  </code>
                ) : (
                  <span className="muted">none (policies see no amount)</span>
                )}
              </dd>
            </dl>
            <h2>Input schema</h2>
            <pre className="json" tabIndex={0} aria-label="Input schema">
              {JSON.stringify(t.input_schema, null, 2)}
            </pre>
            <ToolDeclaration tool={t} />
            <ToolAuthorization orgId={orgId} tool={t} role={role} />
            {can.manage(role) && (
              <section>
                <h2>Edit</h2>
                {t.enabled && (
                  <p className="muted">
                    The tool is enabled: changing its upstream tool, action, schema or amount mapping needs an
                    owner or admin.
                  </p>
                )}
                <ActionForm
                  key={t.updated_at}
                  submit="Save the tool"
                  onSubmit={async (d) => {
                    const changes = toolChanges(d, t);
                    if (Object.keys(changes).length === 0) return;
                    await toolsApi.update(orgId, t.id, changes);
                    await queryClient.invalidateQueries({ queryKey: toolKeys.one(t.id) });
                    await queryClient.invalidateQueries({ queryKey: toolKeys.all(orgId) });
                  }}
                >
                  <ToolFields tool={t} />
                </ActionForm>
              </section>
            )}
          </>
        )}
      </Loaded>
    </main>
  );
}
