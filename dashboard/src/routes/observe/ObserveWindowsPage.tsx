import { Button, Stack } from "@mantine/core";
import { Link } from "react-router";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { observeApi, observeKeys } from "../../api/observe.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { ActionButton } from "../../components/ActionButton.js";
import { EmptyState } from "../../components/EmptyState.js";
import { Loaded } from "../../components/Loading.js";
import { PageHeader } from "../../components/PageHeader.js";
import { ObserveLimits } from "./ObserveLimits.js";
import { WindowTable } from "./WindowTable.js";

/** Every observe window of the organization; an owner or admin starts one on the agent's page. */
export function ObserveWindowsPage() {
  const { orgId, org } = useCurrentOrganization();
  const queryClient = useQueryClient();
  const windows = useQuery({ queryKey: observeKeys.list(orgId), queryFn: () => observeApi.list(orgId) });
  const anyOpen = windows.data?.items.some((w) => w.state === "open") ?? false;
  return (
    <Stack gap="lg">
      <PageHeader
        title="Observe windows"
        description="While a window is open, what an agent's policy would refuse or hold is allowed and reported instead. Owners and admins start a window on the agent's page."
        actions={
          org &&
          can.manage(org.role) &&
          anyOpen && (
            <ActionButton
              color="red"
              confirm={{
                title: "End every observe window",
                consequence:
                  "Every open observe window of this organization ends now: from the next call, each agent's policy refuses and holds again what the window let through.",
                confirmLabel: "End every window",
              }}
              onClick={async () => {
                await observeApi.endAll(orgId);
                await queryClient.invalidateQueries({ queryKey: observeKeys.all(orgId) });
              }}
            >
              End every open window
            </ActionButton>
          )
        }
      />
      {org && <ObserveLimits org={org} />}
      <Loaded query={windows}>
        {(page) => (
          <WindowTable
            orgId={orgId}
            windows={page.items}
            empty={
              <EmptyState
                title="No observe window yet."
                action={
                  <Button component={Link} to={orgPath(orgId, "/agents")} variant="light" size="xs">
                    Open the agents
                  </Button>
                }
              >
                An owner or admin starts one on an agent&apos;s page.
              </EmptyState>
            }
          />
        )}
      </Loaded>
    </Stack>
  );
}
