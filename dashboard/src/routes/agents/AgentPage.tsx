import { Anchor, NativeSelect, Paper, Stack, Text, Title } from "@mantine/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useParams } from "react-router";
import { agentStatuses } from "@countersign/protocol/wire";
import { agentKeys, agentsApi } from "../../api/agents.js";
import { policies, policyKeys } from "../../api/policies.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { ActionForm, choice, Field, field } from "../../components/ActionForm.js";
import { Facts } from "../../components/Facts.js";
import { KubernetesManaged, kubectlGet } from "../../components/KubernetesManaged.js";
import { Loaded } from "../../components/Loading.js";
import { PageHeader } from "../../components/PageHeader.js";
import { StatusBadge } from "../../components/StatusBadge.js";
import { When } from "../../components/When.js";
import { PolicySelect } from "./PolicySelect.js";
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
    <Loaded query={agent}>
      {({ agent: a }) => (
        <Stack gap="lg">
          <PageHeader
            title={a.name}
            badge={<StatusBadge status={a.status} testId="agent-status" />}
            description={
              a.status === "active"
                ? "Its calls reach the Gateway with its gateway keys, decided by its policy within its delegations."
                : "Disabled: the Gateway refuses every call of this agent until it is active again."
            }
          />
          <Facts
            items={[
              {
                term: "Policy",
                testId: "agent-policy",
                value: a.policy ? (
                  <Anchor component={Link} to={orgPath(orgId, `/policies/${a.policy.id}`)}>
                    {a.policy.name ?? a.policy.id}
                  </Anchor>
                ) : (
                  "none: every call is denied"
                ),
              },
              {
                term: "Managed by",
                value: a.managed_by
                  ? `Kubernetes (${kubectlGet(a.managed_by)})`
                  : "people, in this dashboard",
              },
              { term: "Created", value: <When at={a.created_at} /> },
              {
                term: "Agent id",
                value: (
                  <Text span ff="monospace" size="sm">
                    {a.id}
                  </Text>
                ),
              },
            ]}
          />
          <NoApprovers
            orgId={orgId}
            items={status.data?.items.filter((p) => p.policy_id === a.policy?.id) ?? []}
            role={org?.role}
          />
          <KubernetesManaged managedBy={a.managed_by} editable={can.manage(role)} />
          {can.manage(role) && (
            <Paper withBorder p="md" radius="md" component="section" aria-labelledby="agent-settings-title">
              <Stack gap="sm">
                <Title order={2} size="h3" id="agent-settings-title">
                  Settings
                </Title>
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
                  <Field label="Name" name="name" defaultValue={a.name} maxLength={200} />
                  <NativeSelect
                    label="Status"
                    name="status"
                    defaultValue={a.status}
                    data={[...agentStatuses]}
                    description="A disabled agent's calls are refused at once."
                    maw={240}
                  />
                  {can.administer(role) && <PolicySelect orgId={orgId} defaultValue={a.policy?.id ?? null} />}
                </ActionForm>
              </Stack>
            </Paper>
          )}
          {can.manage(role) && <GatewayKeys orgId={orgId} agentId={agentId} />}
          <Delegations orgId={orgId} agentId={agentId} mayAdminister={can.administer(role)} />
          <DryRun orgId={orgId} agentId={agentId} />
          {org && <AgentObserve org={org} agentId={agentId} agentName={a.name} />}
        </Stack>
      )}
    </Loaded>
  );
}
