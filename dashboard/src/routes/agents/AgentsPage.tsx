import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate } from "react-router";
import type { AgentInput } from "@countersign/protocol/wire";
import { agentKeys, agentsApi } from "../../api/agents.js";
import { policies } from "../../api/policies.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { ActionForm, Field, field } from "../../components/ActionForm.js";
import { kubectlGet } from "../../components/KubernetesManaged.js";
import { Loaded } from "../../components/Loading.js";

export function usePolicies(orgId: string) {
  return useQuery({
    queryKey: ["policies", orgId],
    queryFn: () => policies.list(orgId),
  });
}

export function PolicySelect({
  orgId,
  name = "policy_id",
  defaultValue,
}: {
  orgId: string;
  name?: string;
  defaultValue?: string | null;
}) {
  const policies = usePolicies(orgId);
  return (
    <label>
      Policy
      <select name={name} defaultValue={defaultValue ?? ""}>
        <option value="">No policy (every call is denied)</option>
        {policies.data?.items.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </select>
    </label>
  );
}

export function AgentsPage() {
  const { orgId, org } = useCurrentOrganization();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const agents = useQuery(agentsApi.listQuery(orgId));
  return (
    <main>
      <h1>Agents</h1>
      <Loaded query={agents}>
        {(page) =>
          page.items.length === 0 ? (
            <p className="muted">No agents yet.</p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Status</th>
                  <th>Policy</th>
                  <th>Managed by</th>
                </tr>
              </thead>
              <tbody>
                {page.items.map((a) => (
                  <tr key={a.id}>
                    <td>
                      <Link to={orgPath(orgId, `/agents/${a.id}`)}>{a.name}</Link>
                    </td>
                    <td>{a.status}</td>
                    <td>{a.policy?.name ?? "none"}</td>
                    <td>
                      {a.managed_by ? (
                        <span title={kubectlGet(a.managed_by)}>
                          Kubernetes ({a.managed_by.namespace}/{a.managed_by.name})
                        </span>
                      ) : (
                        "people"
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Loaded>
      {org && can.manage(org.role) && (
        <>
          <h2>New agent</h2>
          <ActionForm
            submit="Create agent"
            onSubmit={async (d) => {
              const body: AgentInput = { name: field(d, "name") };
              const policy = field(d, "policy_id");
              if (policy && can.administer(org.role)) body.policy_id = policy;
              const { agent } = await agentsApi.create(orgId, body);
              await queryClient.invalidateQueries({ queryKey: agentKeys.all(orgId) });
              navigate(orgPath(orgId, `/agents/${agent.id}`));
            }}
          >
            <Field label="Name" name="name" />
            {can.administer(org.role) && <PolicySelect orgId={orgId} />}
          </ActionForm>
        </>
      )}
    </main>
  );
}
