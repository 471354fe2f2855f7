import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { apiKeyKeys, apiKeysApi } from "../../api/api-keys.js";
import { apiKeyEnvironments, scopes as wireScopes } from "@countersign/protocol/wire";
import { useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { ActionForm, choice, choices, Field, field } from "../../components/ActionForm.js";
import { CopyOnce } from "../../components/CopyOnce.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";
import { Loaded } from "../../components/Loading.js";

/** The scopes a management key may carry (SPEC 5.2), with what each lets a script do. */
const scopes: { scope: string; means: string }[] = [
  { scope: "read", means: "read the organization, agents, tools, policies, actions, overview and usage" },
  { scope: "approvals:read", means: "read approval requests" },
  { scope: "receipts:read", means: "read receipts and download their bundles" },
  { scope: "agents:write", means: "create and change agents, end observe windows" },
  { scope: "tools:write", means: "create and change MCP servers and tools" },
  { scope: "policies:write", means: "create policies, versions, examples and Shadow" },
];

/** Management keys for scripts and CI (owners and admins): scopes chosen at creation, the secret shown once. */
export function ManagementKeysPage() {
  const { orgId, org } = useCurrentOrganization();
  const queryClient = useQueryClient();
  const mayAdminister = !!org && can.administer(org.role);
  const keys = useQuery({ ...apiKeysApi.listQuery(orgId, "management"), enabled: mayAdminister });
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: apiKeyKeys.all(orgId) });
  if (!org) return <main className="muted">Loading…</main>;
  if (!mayAdminister)
    return (
      <main>
        <h1>Management keys</h1>
        <p>Only owners and admins see and make management keys.</p>
      </main>
    );
  return (
    <main>
      <h1>Management keys</h1>
      <p className="muted">
        Keys for scripts and CI calling the Cloud API. A key does only what its scopes allow; its secret is
        shown once, when it is made.
      </p>
      <Loaded query={keys}>
        {(page) =>
          page.items.length === 0 ? (
            <p className="muted">No management keys.</p>
          ) : (
            <table data-testid="management-keys">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Key</th>
                  <th>Scopes</th>
                  <th>State</th>
                  <th>Last used</th>
                  <th>
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {page.items.map((k) => (
                  <tr key={k.id}>
                    <td>{k.name}</td>
                    <td>
                      <code>
                        svc_{k.environment}_{k.prefix}_…
                      </code>
                    </td>
                    <td>{k.scopes.join(", ")}</td>
                    <td>{k.state}</td>
                    <td>
                      {typeof k.last_used_at === "string"
                        ? new Date(k.last_used_at).toLocaleString()
                        : "never"}
                    </td>
                    <td>
                      {k.state === "active" && (
                        <button
                          type="button"
                          aria-label={`Revoke ${k.name}`}
                          onClick={() => apiKeysApi.revoke(orgId, k.id).then(refresh, setError)}
                        >
                          Revoke
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Loaded>
      <ErrorNotice error={error} />
      {secret && <CopyOnce label="New management key." secret={secret} />}
      <h2>New management key</h2>
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
        <Field label="Key name" name="name" />
        <label>
          Environment
          <select name="environment" defaultValue="live">
            <option>live</option>
            <option>test</option>
          </select>
        </label>
        <fieldset>
          <legend>Scopes</legend>
          {scopes.map((s) => (
            <label key={s.scope} className="check">
              <input type="checkbox" name="scopes" value={s.scope} defaultChecked={s.scope === "read"} />
              <span>
                <code>{s.scope}</code> <span className="muted">{s.means}</span>
              </span>
            </label>
          ))}
        </fieldset>
      </ActionForm>
    </main>
  );
}
