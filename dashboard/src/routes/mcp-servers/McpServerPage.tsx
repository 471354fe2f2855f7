import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { McpServer } from "@countersign/protocol/wire";
import { useNavigate, useParams } from "react-router";
import { mcpServersApi, mcpServerKeys } from "../../api/mcp-servers.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { ActionButton } from "../../components/ActionButton.js";
import { ActionForm, Field, field } from "../../components/ActionForm.js";
import { Loaded } from "../../components/Loading.js";
import { When } from "../../components/When.js";
import { ServerTools } from "../tools/ServerTools.js";
import { CredentialForm } from "./CredentialForm.js";
import { CredentialState } from "./CredentialState.js";
import { Discovery } from "./Discovery.js";
import { ServerIdentity } from "./ServerIdentity.js";
import { KubernetesManaged } from "../../components/KubernetesManaged.js";
import { toolKeys } from "../../api/tools.js";

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
    <main>
      <Loaded query={server}>
        {(s) => (
          <>
            <h1>{s.name}</h1>
            <KubernetesManaged managedBy={s.managed_by} editable={writer} />
            <dl className="facts">
              <dt>Kind</dt>
              <dd>{s.kind === "mcp" ? "MCP server" : "decision-only integration"}</dd>
              <dt>Status</dt>
              <dd data-testid="server-status">{s.status}</dd>
              {s.kind === "mcp" && (
                <>
                  <dt>URL</dt>
                  <dd>{s.url}</dd>
                  <dt>Authorization header</dt>
                  <dd>
                    <CredentialState credential={s.credential} />
                  </dd>
                  <dt>Server identity</dt>
                  <dd data-testid="server-kid">
                    {s.server_kid ? <code>{s.server_kid}</code> : <span className="muted">none</span>}
                  </dd>
                </>
              )}
              <dt>Changed</dt>
              <dd>
                <When at={s.updated_at} />
              </dd>
            </dl>
            {s.kind === "decision_only" && (
              <p className="muted">
                Decision-only: the caller executes the action after asking the Gateway, so there is no
                address, credential or identity, and nothing to discover.
              </p>
            )}
            {writer && <ServerSettings orgId={orgId} server={s} />}
            {s.kind === "mcp" && writer && <CredentialForm orgId={orgId} server={s} />}
            {s.kind === "mcp" && <ServerIdentity orgId={orgId} server={s} mayChange={writer} />}
            {s.kind === "mcp" && writer && <Discovery orgId={orgId} server={s} />}
            <ServerTools orgId={orgId} server={s} mayCreate={writer} />
            {writer && <DeleteServer orgId={orgId} server={s} />}
          </>
        )}
      </Loaded>
    </main>
  );
}

function ServerSettings({ orgId, server }: { orgId: string; server: McpServer }) {
  const queryClient = useQueryClient();
  return (
    <section>
      <h2>Settings</h2>
      {server.kind === "mcp" && (
        <p className="muted">
          Changing the URL, the authorization header or the identity changes what enabled tools are bound to:
          only an owner or admin may, and those tools then need re-authorization before the Gateway runs them
          again.
        </p>
      )}
      <ActionForm
        submit="Save settings"
        onSubmit={async (d) => {
          const url = field(d, "url");
          await mcpServersApi.update(orgId, server.id, {
            name: field(d, "name"),
            status: field(d, "status") as McpServer["status"],
            ...(server.kind === "mcp" && url !== server.url ? { url } : {}),
          });
          await queryClient.invalidateQueries({ queryKey: mcpServerKeys.one(server.id) });
          await queryClient.invalidateQueries({ queryKey: mcpServerKeys.all(orgId) });
          await queryClient.invalidateQueries({ queryKey: toolKeys.all(orgId) });
        }}
      >
        <Field label="Name" name="name" defaultValue={server.name} />
        <label>
          Status
          <select name="status" defaultValue={server.status}>
            <option>active</option>
            <option>disabled</option>
          </select>
        </label>
        {server.kind === "mcp" && (
          <Field label="URL (public https)" name="url" type="url" defaultValue={server.url ?? ""} />
        )}
      </ActionForm>
    </section>
  );
}

function DeleteServer({ orgId, server }: { orgId: string; server: McpServer }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return (
    <section>
      <h2>Delete</h2>
      <p className="muted">Refused (IN_USE) once its tools have recorded actions; disable it instead.</p>
      <ActionButton
        confirm={{ title: `Delete ${server.name}`, consequence: `Agents can no longer call ${server.name}: the server and its tools are deleted.`, confirmLabel: "Delete the server" }}
        onClick={async () => {
          await mcpServersApi.remove(orgId, server.id);
          await queryClient.invalidateQueries({ queryKey: mcpServerKeys.all(orgId) });
          navigate(orgPath(orgId, "/mcp-servers"));
        }}
      >
        Delete {server.kind === "mcp" ? "MCP server" : "integration"}
      </ActionButton>
    </section>
  );
}
