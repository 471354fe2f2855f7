import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { approvalsApi } from "../../api/approvals.js";
import { policies, policyKeys } from "../../api/policies.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { Loaded } from "../../components/Loading.js";
import { Amount } from "../../components/Amount.js";
import { NoApprovers } from "../policies/NoApprovers.js";

/** The queue of pending requests; it refreshes by itself while open. */
export function ApprovalsPage() {
  const { orgId, org } = useCurrentOrganization();
  const queue = useQuery({ ...approvalsApi.pendingQuery(orgId), refetchInterval: 3000 });
  // Calls no one can approve never wait here: they are denied NO_APPROVERS. Said above the queue.
  const status = useQuery({ queryKey: policyKeys.status(orgId), queryFn: () => policies.status(orgId) });
  return (
    <main>
      <h1>Approvals</h1>
      {status.data && <NoApprovers orgId={orgId} items={status.data.items} role={org?.role} />}
      <Loaded query={queue}>
        {(page) =>
          page.items.length === 0 ? (
            <p className="muted" data-testid="queue-empty">
              Nothing is waiting for a decision.
            </p>
          ) : (
            <table data-testid="approval-queue">
              <thead>
                <tr>
                  <th>Agent</th>
                  <th>Tool</th>
                  <th>Action</th>
                  <th>Amount</th>
                  <th>Expires</th>
                </tr>
              </thead>
              <tbody>
                {page.items.map((a) => (
                  <tr key={a.id}>
                    <td>
                      <Link to={orgPath(orgId, `/approvals/${a.id}`)}>{a.action?.agent?.name ?? "?"}</Link>
                    </td>
                    <td>{a.action?.tool}</td>
                    <td>{a.action?.action}</td>
                    <td>
                      <Amount amount={a.action?.amount ?? null} />
                    </td>
                    <td>
                      {new Date(a.expires_at).toLocaleString()}
                      {a.approvers_left === 0 && (
                        <span className="warning-text" data-testid="row-no-one-can-decide">
                          {" "}
                          (no one can decide it any more)
                        </span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Loaded>
    </main>
  );
}
