import { useQuery, useQueryClient } from "@tanstack/react-query";
import { observeApi, observeKeys } from "../../api/observe.js";
import type { Organization } from "@countersign/protocol/wire";
import { can } from "../../session/roles.js";
import { ActionButton } from "../../components/ActionButton.js";
import { ActionForm, Field, field } from "../../components/ActionForm.js";
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
    <section>
      <h2>Observe windows</h2>
      <Loaded query={windows}>
        {({ open, items }) => (
          <>
            {open ? (
              <div className="warning" role="status" data-testid="observe-open">
                Observing since <When at={open.started_at} /> until <When at={open.ends_at} />: what the
                policy would refuse or hold is allowed and reported (
                {open.live ? "live and test keys" : "test keys"}).{" "}
                {can.manage(org.role) && (
                  <ActionButton
                    onClick={async () => {
                      await observeApi.end(org.id, agentId);
                      await refresh();
                    }}
                  >
                    End the window
                  </ActionButton>
                )}
              </div>
            ) : (
              <p className="muted">No open window: the policy is enforced.</p>
            )}
            {items.length > 0 && (
              <>
                <h3>The 20 most recent</h3>
                <WindowTable orgId={org.id} windows={items} showAgent={false} />
              </>
            )}
            {!open && can.administer(org.role) && (
              <>
                <h3>Start a window</h3>
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
                    <Field
                      label={`Hours (1 to ${org.observe_max_hours})`}
                      name="hours"
                      type="number"
                      defaultValue={1}
                    />
                    {org.observe_live_opt_in === true && (
                      <label className="inline">
                        <input type="checkbox" name="live" /> Live keys too
                      </label>
                    )}
                    <Field
                      label="Reason (shown to every member; never a secret)"
                      name="reason"
                      required={false}
                    />
                    <Field
                      label={`Type the agent's name (${agentName}) to confirm`}
                      name="confirmation"
                      autoComplete="off"
                    />
                  </ActionForm>
                )}
              </>
            )}
          </>
        )}
      </Loaded>
    </section>
  );
}
