import { Alert, Checkbox, Group, Paper, Stack, Text, Title } from "@mantine/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { observeApi, observeKeys } from "../../api/observe.js";
import type { Organization } from "@countersign/protocol/wire";
import { can } from "../../session/roles.js";
import { ActionButton } from "../../components/ActionButton.js";
import { ActionForm, Field, field } from "../../components/ActionForm.js";
import { EmptyState } from "../../components/EmptyState.js";
import { Loaded } from "../../components/Loading.js";
import { When } from "../../components/When.js";
import { ObserveLimits } from "./ObserveLimits.js";
import { WindowTable } from "./WindowTable.js";

/**
 * The agent's observe windows: the open one (ended by writers), the 20 most recent, and the form an
 * owner or admin starts one with, below the organization's limits.
 */
export function AgentObserve({
  org,
  agentId,
  agentName,
}: {
  org: Organization;
  agentId: string;
  agentName: string;
}) {
  const queryClient = useQueryClient();
  const windows = useQuery({
    queryKey: observeKeys.ofAgent(org.id, agentId),
    queryFn: () => observeApi.ofAgent(org.id, agentId),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: observeKeys.all(org.id) });
  return (
    <Paper withBorder p="lg" component="section">
      <Stack gap="sm">
        <Title order={2} size="h3">
          Observe windows
        </Title>
        <Loaded query={windows}>
          {({ open, items }) => (
            <>
              {open ? (
                <Alert color="violet" variant="light" role="status" data-testid="observe-open">
                  <Group justify="space-between" align="center" gap="sm">
                    <Text size="sm" maw={560}>
                      Observing since <When at={open.started_at} /> until <When at={open.ends_at} />: what the
                      policy would refuse or hold is allowed and reported (
                      {open.live ? "live and test keys" : "test keys"}).
                    </Text>
                    {can.manage(org.role) && (
                      <ActionButton
                        size="xs"
                        variant="default"
                        onClick={async () => {
                          await observeApi.end(org.id, agentId);
                          await refresh();
                        }}
                      >
                        End the window
                      </ActionButton>
                    )}
                  </Group>
                </Alert>
              ) : (
                <Text size="sm" c="dimmed">
                  No open window: the policy is enforced.
                </Text>
              )}
              {items.length > 0 && (
                <>
                  <Title order={3} size="h4">
                    The 20 most recent
                  </Title>
                  <WindowTable orgId={org.id} windows={items} showAgent={false} empty={null} />
                </>
              )}
              {!open && can.administer(org.role) && (
                <>
                  <Title order={3} size="h4">
                    Start a window
                  </Title>
                  <ObserveLimits org={org} />
                  {org.observe_max_hours > 0 && (
                    <ActionForm
                      submit="Start observing"
                      onSubmit={async (d) => {
                        const reason = field(d, "reason");
                        await observeApi.start(org.id, agentId, {
                          hours: Number(field(d, "hours")),
                          live: d.get("live") === "on",
                          confirmation: field(d, "confirmation"),
                          ...(reason ? { reason } : {}),
                        });
                        await refresh();
                      }}
                    >
                      {/* The longest window is the organization's rule: the Cloud API's refusal says it. */}
                      <Field
                        label={`Hours (1 to ${org.observe_max_hours})`}
                        name="hours"
                        type="number"
                        defaultValue={1}
                        subject="The number of hours"
                      />
                      {org.observe_live_opt_in === true && <Checkbox name="live" label="Live keys too" />}
                      <Field
                        label="Reason (shown to every member; never a secret)"
                        name="reason"
                        required={false}
                      />
                      <Field
                        label={`Type the agent's name (${agentName}) to confirm`}
                        name="confirmation"
                        autoComplete="off"
                        subject="The agent's name"
                      />
                    </ActionForm>
                  )}
                </>
              )}
              {!open && items.length === 0 && !can.administer(org.role) && (
                <EmptyState title="No observe window yet.">An owner or admin starts one here.</EmptyState>
              )}
            </>
          )}
        </Loaded>
      </Stack>
    </Paper>
  );
}
