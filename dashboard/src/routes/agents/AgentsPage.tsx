import { Anchor, Paper, Stack, Text, Title, Tooltip } from "@mantine/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate } from "react-router";
import type { Agent, AgentInput } from "@countersign/protocol/wire";
import { agentKeys, agentsApi } from "../../api/agents.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { ActionForm, Field, field } from "../../components/ActionForm.js";
import { DataTable } from "../../components/DataTable.js";
import { EmptyState } from "../../components/EmptyState.js";
import { kubectlGet } from "../../components/KubernetesManaged.js";
import { Loaded } from "../../components/Loading.js";
import { PageHeader } from "../../components/PageHeader.js";
import { StatusBadge } from "../../components/StatusBadge.js";
import { PolicySelect } from "./PolicySelect.js";

export function AgentsPage() {
  const { orgId, org } = useCurrentOrganization();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const agents = useQuery(agentsApi.listQuery(orgId));
  const mayCreate = Boolean(org && can.manage(org.role));
  return (
    <Stack gap="lg">
      <PageHeader
        title="Agents"
        description="The programs that act for the organization: each asks the Gateway with its own key, under its policy and the delegations the principal signed."
      />
      <Loaded query={agents}>
        {(page) => (
          <DataTable<Agent>
            caption="Agents"
            rows={page.items}
            rowKey={(a) => a.id}
            defaultSort={{ key: "name", descending: false }}
            columns={[
              {
                key: "name",
                header: "Name",
                sortValue: (a) => a.name,
                render: (a) => (
                  <Anchor component={Link} to={orgPath(orgId, `/agents/${a.id}`)}>
                    {a.name}
                  </Anchor>
                ),
              },
              {
                key: "status",
                header: "Status",
                sortValue: (a) => a.status,
                render: (a) => <StatusBadge status={a.status} />,
              },
              {
                key: "policy",
                header: "Policy",
                sortValue: (a) => a.policy?.name ?? "",
                render: (a) =>
                  a.policy ? (
                    <Anchor component={Link} to={orgPath(orgId, `/policies/${a.policy.id}`)}>
                      {a.policy.name ?? a.policy.id}
                    </Anchor>
                  ) : (
                    <Text span size="sm" c="dimmed">
                      none (every call is denied)
                    </Text>
                  ),
              },
              {
                key: "managed",
                header: "Managed by",
                render: (a) =>
                  a.managed_by ? (
                    <Tooltip label={kubectlGet(a.managed_by)}>
                      <Text span size="sm">
                        Kubernetes ({a.managed_by.namespace}/{a.managed_by.name})
                      </Text>
                    </Tooltip>
                  ) : (
                    <Text span size="sm" c="dimmed">
                      people
                    </Text>
                  ),
              },
            ]}
            empty={
              <EmptyState title="No agents yet">
                {mayCreate
                  ? "Create one with the form below, then give it a gateway key and a delegation."
                  : "An admin or manager of the organization creates them."}
              </EmptyState>
            }
          />
        )}
      </Loaded>
      {org && mayCreate && (
        <Paper withBorder p="md" radius="md" component="section" aria-labelledby="new-agent-title">
          <Stack gap="sm">
            <Title order={2} size="h3" id="new-agent-title">
              New agent
            </Title>
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
              <Field label="Name" name="name" maxLength={200} />
              {can.administer(org.role) && <PolicySelect orgId={orgId} />}
            </ActionForm>
          </Stack>
        </Paper>
      )}
    </Stack>
  );
}
