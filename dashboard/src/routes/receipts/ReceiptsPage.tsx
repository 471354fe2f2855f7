import { useQuery } from "@tanstack/react-query";
import { Link, useSearchParams } from "react-router";
import { receiptsApi } from "../../api/receipts.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { Loaded } from "../../components/Loading.js";

const outcomes = ["", "succeeded", "failed", "final", "pending", "granted"];

export function ReceiptsPage() {
  const { orgId } = useCurrentOrganization();
  const [params, setParams] = useSearchParams();
  const outcome = params.get("outcome") ?? "";
  const receipts = useQuery(receiptsApi.listQuery(orgId, outcome));
  return (
    <main>
      <h1>Receipts</h1>
      <label>
        Outcome
        <select
          value={outcome}
          onChange={(e) => setParams(e.target.value ? { outcome: e.target.value } : {})}
        >
          {outcomes.map((o) => (
            <option key={o} value={o}>
              {o || "any"}
            </option>
          ))}
        </select>
      </label>
      <Loaded query={receipts}>
        {(page) => (
          <table data-testid="receipts">
            <thead>
              <tr>
                <th>Issued</th>
                <th>Kind</th>
                <th>Outcome</th>
                <th>Agent</th>
                <th>Tool</th>
              </tr>
            </thead>
            <tbody>
              {page.items.map((r) => (
                <tr key={r.id}>
                  <td>
                    <Link to={orgPath(orgId, `/receipts/${r.id}`)}>
                      {new Date(r.created_at).toLocaleString()}
                    </Link>
                  </td>
                  <td>{r.kind}</td>
                  <td>{r.outcome}</td>
                  <td>{r.action?.agent?.name}</td>
                  <td>{r.action?.tool}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Loaded>
    </main>
  );
}
