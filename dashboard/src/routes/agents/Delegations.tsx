import { Anchor, Code, Group, Paper, Stack, Text, Title } from "@mantine/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Link } from "react-router";
import type { Delegation } from "@countersign/protocol/wire";
import { agentKeys, delegationsApi } from "../../api/agents.js";
import { ActionButton } from "../../components/ActionButton.js";
import { ActionForm, Field, field } from "../../components/ActionForm.js";
import { DataTable } from "../../components/DataTable.js";
import { EmptyState } from "../../components/EmptyState.js";
import { Loaded } from "../../components/Loading.js";
import { StatusBadge } from "../../components/StatusBadge.js";
import { When } from "../../components/When.js";
import { signDelegationHere, signRevocationHere } from "../../crypto/principal-signing.js";
import { orgPath } from "../../session/organization.js";
import { usePrincipal } from "../principal/PrincipalPage.js";

/** Delegations of the agent, granted and revoked with the principal's key held in this browser. */
export function Delegations({
  orgId,
  agentId,
  mayAdminister,
}: {
  orgId: string;
  agentId: string;
  mayAdminister: boolean;
}) {
  const queryClient = useQueryClient();
  const principal = usePrincipal(orgId);
  const delegations = useQuery(delegationsApi.listQuery(orgId, agentId));
  const refresh = () => queryClient.invalidateQueries({ queryKey: agentKeys.delegations(agentId) });
  const kid = principal.data?.principal?.kid;
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="delegations-title">
      <Stack gap="md">
        <Title order={2} size="h3" id="delegations-title">
          Delegations
        </Title>
        <Text size="sm" c="dimmed">
          What the organization principal lets the agent do, signed in this browser: the Gateway refuses a
          call whose action no active delegation covers.
        </Text>
        <Loaded query={delegations}>
          {(page) => (
            <DataTable<Delegation>
              testId="delegations"
              caption="The agent's delegations"
              rows={page.items}
              rowKey={(d) => d.id}
              columns={[
                {
                  key: "permissions",
                  header: "Permissions",
                  render: (d) => (
                    <Group gap={4}>
                      {d.permissions.map((p) => (
                        <Code key={p}>{p}</Code>
                      ))}
                    </Group>
                  ),
                },
                { key: "state", header: "State", render: (d) => <StatusBadge status={String(d.state)} /> },
                {
                  key: "expires",
                  header: "Valid until",
                  align: "right",
                  render: (d) => <When at={d.expires_at} />,
                },
                ...(mayAdminister && kid
                  ? [
                      {
                        key: "revoke",
                        header: "Action",
                        render: (d: Delegation) =>
                          d.state === "active" && (
                            <ActionButton
                              size="xs"
                              variant="light"
                              color="red"
                              onClick={async () => {
                                const revocation = await signRevocationHere(orgId, kid, d.object_id);
                                await delegationsApi.revoke(orgId, d.id, revocation);
                                await refresh();
                              }}
                              confirm={{
                                title: "Revoke this delegation",
                                consequence: `The agent's calls that only this delegation covers (${d.permissions.join(", ")}) are refused from now on. The signed revocation cannot be withdrawn: grant a new delegation to allow them again.`,
                                confirmLabel: "Revoke",
                              }}
                            >
                              Revoke
                            </ActionButton>
                          ),
                      },
                    ]
                  : []),
              ]}
              empty={
                <EmptyState title="No delegation">
                  Every call of this agent is refused NO_DELEGATION.{" "}
                  {mayAdminister
                    ? "Grant one with the form below."
                    : "An admin of the organization grants them."}
                </EmptyState>
              }
            />
          )}
        </Loaded>
        {mayAdminister &&
          (kid ? (
            <ActionForm
              submit="Sign and grant"
              onSubmit={async (d) => {
                const permissions = field(d, "permissions")
                  .split(/[\s,]+/)
                  .filter(Boolean);
                const days = Number(field(d, "days"));
                const delegation = await signDelegationHere(orgId, kid, {
                  agent_id: agentId,
                  permissions,
                  expires_at: new Date(Date.now() + days * 86_400_000),
                });
                await delegationsApi.submit(orgId, agentId, delegation);
                await refresh();
              }}
            >
              <Field
                label="Permissions (actions or patterns such as payments.*)"
                name="permissions"
                subject="The permissions"
                description="Separated by spaces or commas."
              />
              <Field label="Valid for (days)" name="days" type="number" defaultValue={30} min={1} />
            </ActionForm>
          ) : (
            <Text size="sm" c="dimmed">
              The organization principal signs delegations, and there is none yet.{" "}
              <Anchor component={Link} to={orgPath(orgId, "/principal")}>
                Create the principal
              </Anchor>{" "}
              first.
            </Text>
          ))}
      </Stack>
    </Paper>
  );
}
