import { useQuery } from "@tanstack/react-query";
import { Link, useSearchParams } from "react-router";
import { actionsApi } from "../../api/actions.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { Amount } from "../../components/Amount.js";
import { Loaded } from "../../components/Loading.js";

const statuses = [
  "",
  "pending_approval",
  "approved",
  "executing",
  "authorized",
  "succeeded",
  "failed",
  "rejected",
  "cancelled",
  "denied",
  "expired",
];

/** Protected actions, filtered by status, agent or tool (the filters live in the address, so a view can be shared). */
export function ActionsPage() {
  const { orgId } = useCurrentOrganization();
  const [params, setParams] = useSearchParams();
  const filter = Object.fromEntries(
    ["status", "tool", "agent_id"].map((k) => [k, params.get(k) || undefined]),
  );
  const actions = useQuery(actionsApi.listQuery(orgId, filter));
  const set = (k: string, v: string) => {
    const next = new URLSearchParams(params);
    if (v) next.set(k, v);
    else next.delete(k);
    setParams(next);
  };
  return (
    <main>
      <h1>Actions</h1>
      <div className="filters">
        <label>
          Status
          <select value={params.get("status") ?? ""} onChange={(e) => set("status", e.target.value)}>
            {statuses.map((s) => (
              <option key={s} value={s}>
                {s || "any"}
              </option>
            ))}
          </select>
        </label>
        <label>
          Tool
          <input defaultValue={params.get("tool") ?? ""} onBlur={(e) => set("tool", e.target.value)} />
        </label>
      </div>
      <Loaded query={actions}>
        {(page) => (
          <table data-testid="actions">
            <thead>
              <tr>
                <th>When</th>
                <th>Agent</th>
                <th>Tool</th>
                <th>Amount</th>
                <th>Status</th>
              </tr>
            </thead>
            <tbody>
              {page.items.map((a) => (
                <tr key={a.id}>
                  <td>
                    <Link to={orgPath(orgId, `/actions/${a.id}`)}>
                      {new Date(a.created_at).toLocaleString()}
                    </Link>
                  </td>
                  <td>{a.agent?.name}</td>
                  <td>{a.tool}</td>
                  <td>
                    <Amount amount={a.amount} />
                  </td>
                  <td data-testid="action-status">{a.status}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Loaded>
    </main>
  );
}
