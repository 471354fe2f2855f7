import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { apiKeyEnvironments } from "@countersign/protocol/wire";
import { apiKeyKeys, apiKeysApi } from "../../api/api-keys.js";
import { ActionForm, choice, Field, field } from "../../components/ActionForm.js";
import { CopyOnce } from "../../components/CopyOnce.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";
import { Loaded } from "../../components/Loading.js";

/** The agent's gateway keys: the secret is shown once, at creation. */
export function GatewayKeys({ orgId, agentId }: { orgId: string; agentId: string }) {
  const queryClient = useQueryClient();
  const keys = useQuery(apiKeysApi.listQuery(orgId, "gateway"));
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: apiKeyKeys.all(orgId) });
  return (
    <section>
      <h2>Gateway keys</h2>
      <Loaded query={keys}>
        {(page) => {
          const mine = page.items.filter((k) => k.agent_id === agentId);
          return mine.length === 0 ? (
            <p className="muted">No gateway key yet: the agent cannot reach the Gateway.</p>
          ) : (
            <ul data-testid="gateway-keys">
              {mine.map((k) => (
                <li key={k.id}>
                  {k.name}{" "}
                  <code>
                    svc_{k.environment}_{k.prefix}_…
                  </code>{" "}
                  {String(k.state ?? "")}{" "}
                  {k.state === "active" && (
                    <button
                      type="button"
                      onClick={() => apiKeysApi.revoke(orgId, k.id).then(refresh, setError)}
                    >
                      Revoke
                    </button>
                  )}
                </li>
              ))}
            </ul>
          );
        }}
      </Loaded>
      <ErrorNotice error={error} />
      {secret && <CopyOnce label="New gateway key." secret={secret} />}
      <ActionForm
        submit="Create gateway key"
        onSubmit={async (d) => {
          const created = await apiKeysApi.create(orgId, {
            name: field(d, "name"),
            kind: "gateway",
            environment: choice(d, "environment", apiKeyEnvironments),
            agent_id: agentId,
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
      </ActionForm>
    </section>
  );
}
