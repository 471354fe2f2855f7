import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useParams } from "react-router";
import { agentStatuses } from "@countersign/protocol/wire";
import { agentKeys, agentsApi } from "../../api/agents.js";
import { policies, policyKeys } from "../../api/policies.js";
import { useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { ActionForm, choice, Field, field } from "../../components/ActionForm.js";
import { KubernetesManaged } from "../../components/KubernetesManaged.js";
import { Loaded } from "../../components/Loading.js";
import { PolicySelect } from "./AgentsPage.js";
import { Delegations } from "./Delegations.js";
import { DryRun } from "./DryRun.js";
import { GatewayKeys } from "./GatewayKeys.js";
import { AgentObserve } from "../observe/AgentObserve.js";
import { NoApprovers } from "../policies/NoApprovers.js";

export function AgentPage() {
  const { orgId, org } = useCurrentOrganization();
  const { agentId = "" } = useParams();
  const queryClient = useQueryClient();
  const agent = useQuery(agentsApi.query(orgId, agentId));
  const role = org?.role ?? "viewer";
  // Whether anyone can approve the calls the agent's policy holds (NoApprovers).
  const status = useQuery({ queryKey: policyKeys.status(orgId), queryFn: () => policies.status(orgId) });
  return (
    <main>
      <Loaded query={agent}>
        {({ agent: a }) => (
          <>
            <h1>{a.name}</h1>
            <p>
              Status {a.status}; policy {a.policy?.name ?? "none"}.
            </p>
            <NoApprovers
              orgId={orgId}
              items={status.data?.items.filter((p) => p.policy_id === a.policy?.id) ?? []}
              role={org?.role}
            />
            <KubernetesManaged managedBy={a.managed_by} editable={can.manage(role)} />
            {can.manage(role) && (
              <ActionForm
                submit="Save agent"
                onSubmit={async (d) => {
                  await agentsApi.update(orgId, agentId, {
                    name: field(d, "name"),
                    status: choice(d, "status", agentStatuses),
                    // Only admins switch an agent's policy (the API refuses others ADMIN_REQUIRED).
                    ...(can.administer(role) ? { policy_id: field(d, "policy_id") || null } : {}),
                  });
                  await queryClient.invalidateQueries({ queryKey: agentKeys.one(agentId) });
                  await queryClient.invalidateQueries({ queryKey: agentKeys.all(orgId) });
                }}
              >
                <Field label="Name" name="name" defaultValue={a.name} />
                <label>
                  Status
                  <select name="status" defaultValue={a.status}>
                    <option>active</option>
                    <option>disabled</option>
                  </select>
                </label>
                {can.administer(role) && <PolicySelect orgId={orgId} defaultValue={a.policy?.id ?? null} />}
              </ActionForm>
            )}
            {can.manage(role) && <GatewayKeys orgId={orgId} agentId={agentId} />}
            <Delegations orgId={orgId} agentId={agentId} mayAdminister={can.administer(role)} />
            <DryRun orgId={orgId} agentId={agentId} />
            {org && <AgentObserve org={org} agentId={agentId} agentName={a.name} />}
          </>
        )}
      </Loaded>
    </main>
  );
}
