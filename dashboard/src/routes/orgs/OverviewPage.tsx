import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";
import { overviewApi } from "../../api/overview.js";
import { policies, policyKeys } from "../../api/policies.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { DecisionsChart } from "../../components/charts/DecisionsChart.js";
import { UsageChart } from "../../components/charts/UsageChart.js";
import { Loaded } from "../../components/Loading.js";
import { NoApprovers } from "../policies/NoApprovers.js";

const periods = [7, 30, 90];

/** The organization at a glance: decisions over time by status, pending approvals, and usage against the plan. */
export function OverviewPage() {
  const { orgId, org } = useCurrentOrganization();
  const [days, setDays] = useState(30);
  const overview = useQuery({ ...overviewApi.query(orgId, days), enabled: !!org });
  const usage = useQuery({ ...overviewApi.usageQuery(orgId), enabled: !!org });
  const status = useQuery({
    queryKey: policyKeys.status(orgId),
    queryFn: () => policies.status(orgId),
    enabled: !!org,
  });
  if (!org) return <main className="muted">Loading…</main>;
  return (
    <main>
      <h1>{org.name}</h1>
      <p>
        You are <strong data-testid="role">{org.role}</strong> here.
      </p>
      {status.data && <NoApprovers orgId={orgId} items={status.data.items} role={org.role} />}
      <section aria-labelledby="decisions-heading">
        <h2 id="decisions-heading">Decisions</h2>
        <label className="inline">
          Period{" "}
          <select value={days} onChange={(e) => setDays(Number(e.target.value))}>
            {periods.map((d) => (
              <option key={d} value={d}>
                last {d} days
              </option>
            ))}
          </select>
        </label>
        <Loaded query={overview}>
          {(o) => (
            <>
              <DecisionsChart overview={o} />
              <dl className="facts">
                <dt>Decisions in the period</dt>
                <dd data-testid="decisions-total">{o.actions.total}</dd>
                <dt>Approvals waiting</dt>
                <dd>
                  <Link to={orgPath(orgId, "/approvals")}>{o.approvals.pending}</Link>
                </dd>
                <dt>Active agents</dt>
                <dd>
                  <Link to={orgPath(orgId, "/agents")}>{o.agents.active}</Link>
                </dd>
              </dl>
            </>
          )}
        </Loaded>
      </section>
      <section aria-labelledby="usage-heading">
        <h2 id="usage-heading">Usage</h2>
        <Loaded query={usage}>
          {(u) => (
            <>
              <UsageChart usage={u} />
              <p>
                Plan <strong>{u.plan}</strong>. Other allowances and billing:{" "}
                <Link to={orgPath(orgId, "/billing")}>Plan and billing</Link>.
              </p>
            </>
          )}
        </Loaded>
      </section>
    </main>
  );
}
