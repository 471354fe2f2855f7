import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { mcpServerKinds } from "@countersign/protocol/wire";
import { mcpServersApi, mcpServerKeys } from "../../api/mcp-servers.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { ActionForm, Field, field } from "../../components/ActionForm.js";
import { Loaded } from "../../components/Loading.js";
import { CredentialState } from "./CredentialState.js";

/** The organization's MCP servers and decision-only integrations, and the form to add one. */
export function McpServersPage() {
  const { orgId, org } = useCurrentOrganization();
  const servers = useQuery({
    queryKey: mcpServerKeys.all(orgId),
    queryFn: () => mcpServersApi.list(orgId),
  });
  return (
    <main>
      <h1>MCP servers and integrations</h1>
      <p className="muted">
        An MCP server is called by the Gateway on the agent's behalf; a decision-only integration is executed
        by its caller, which asks the Gateway first.
      </p>
      <Loaded query={servers}>
        {(page) =>
          page.items.length === 0 ? (
            <p className="muted">None yet.</p>
          ) : (
            <table data-testid="mcp-servers">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Kind</th>
                  <th>Status</th>
                  <th>Address</th>
                  <th>Credential</th>
                </tr>
              </thead>
              <tbody>
                {page.items.map((s) => (
                  <tr key={s.id}>
                    <td>
                      <Link to={orgPath(orgId, `/mcp-servers/${s.id}`)}>{s.name}</Link>
                    </td>
                    <td>{s.kind === "mcp" ? "MCP server" : "decision-only"}</td>
                    <td>{s.status}</td>
                    <td>{s.url ?? <span className="muted">none</span>}</td>
                    <td>
                      <CredentialState credential={s.credential} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Loaded>
      {org && can.manage(org.role) && <NewServer orgId={orgId} />}
    </main>
  );
}

function NewServer({ orgId }: { orgId: string }) {
  const [kind, setKind] = useState<"mcp" | "decision_only">("mcp");
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return (
    <section>
      <h2>Add one</h2>
      <ActionForm
        submit={kind === "mcp" ? "Add MCP server" : "Add integration"}
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
        <label>
          Who executes calls
          <select
            name="kind"
            value={kind}
            onChange={(e) => setKind(mcpServerKinds.find((k) => k === e.target.value) ?? "mcp")}
          >
            <option value="mcp">An MCP server (the Gateway calls it)</option>
            {/* SPEC 1, setup step 4 names this choice. */}
            <option value="decision_only">Your code (decision only)</option>
          </select>
        </label>
        <Field label="Name" name="name" />
        {kind === "mcp" && (
          <>
            <Field label="URL (public https)" name="url" type="url" />
            <p className="muted" data-testid="url-rule">
              In production the Gateway calls only public https addresses. Where the installation allows
              loopback (<code>make run</code>), a server on the same machine may be plain http, such as{" "}
              <code>http://127.0.0.1:3001/mcp</code>.
            </p>
            <Field
              label="Authorization header sent upstream (optional, never shown again)"
              name="authorization"
              type="password"
              required={false}
              autoComplete="off"
            />
          </>
        )}
      </ActionForm>
    </section>
  );
}
