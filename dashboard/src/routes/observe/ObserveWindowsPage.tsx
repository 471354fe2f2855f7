import { useQuery, useQueryClient } from "@tanstack/react-query";
import { observeApi, observeKeys } from "../../api/observe.js";
import { useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { ActionButton } from "../../components/ActionButton.js";
import { Loaded } from "../../components/Loading.js";
import { ObserveLimits } from "./ObserveLimits.js";
import { WindowTable } from "./WindowTable.js";

/** Every observe window of the organization; an owner or admin starts one on the agent's page. */
export function ObserveWindowsPage() {
  const { orgId, org } = useCurrentOrganization();
  const queryClient = useQueryClient();
  const windows = useQuery({ queryKey: observeKeys.list(orgId), queryFn: () => observeApi.list(orgId) });
  const anyOpen = windows.data?.items.some((w) => w.state === "open") ?? false;
  return (
    <main>
      <h1>Observe windows</h1>
      {org && <ObserveLimits org={org} />}
      <p className="muted">Owners and admins start a window on the agent's page.</p>
      {org && can.manage(org.role) && anyOpen && (
        <ActionButton
          confirm={{ title: "End every observe window", consequence: "Every open observe window of this organization ends now; its agents are decided by their policies from the next call.", confirmLabel: "End every window" }}
          onClick={async () => {
            await observeApi.endAll(orgId);
            await queryClient.invalidateQueries({ queryKey: observeKeys.all(orgId) });
          }}
        >
          End every open window
        </ActionButton>
      )}
      <Loaded query={windows}>
        {(page) =>
          page.items.length === 0 ? (
            <p className="muted">No observe window yet.</p>
          ) : (
            <WindowTable orgId={orgId} windows={page.items} />
          )
        }
      </Loaded>
    </main>
  );
}
