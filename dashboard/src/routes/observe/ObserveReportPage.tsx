import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "react-router";
import { observeApi } from "../../api/observe.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { Loaded } from "../../components/Loading.js";
import { When } from "../../components/When.js";

const counts = (m: Record<string, number>) =>
  Object.entries(m)
    .map(([k, n]) => `${k.replace(/_/g, " ")}: ${n}`)
    .join(", ") || "none";

/** What a window let through: counts over every call in it, and the newest relaxed calls. */
export function ObserveReportPage() {
  const { orgId } = useCurrentOrganization();
  const { windowId = "" } = useParams();
  const report = useQuery({
    queryKey: ["observe-report", windowId],
    queryFn: () => observeApi.report(orgId, windowId),
  });
  return (
    <main>
      <Loaded query={report}>
        {(r) => {
          const w = r.observe_window;
          return (
            <>
              <h1>Observe window of {w.agent.name}</h1>
              <dl className="facts">
                <dt>State</dt>
                <dd>{w.state === "open" ? "open" : `ended (${w.end_reason?.replace(/_/g, " ")})`}</dd>
                <dt>Started</dt>
                <dd>
                  <When at={w.started_at} /> for {w.hours} hours,{" "}
                  {w.live ? "live and test keys" : "test keys"}
                </dd>
                <dt>Reason</dt>
                <dd>{w.reason ?? <span className="muted">none given</span>}</dd>
                <dt>Decisions</dt>
                <dd data-testid="report-decisions">{r.decisions}</dd>
                <dt>Relaxed</dt>
                <dd data-testid="report-relaxed">{r.relaxed}</dd>
                <dt>By policy effect</dt>
                <dd>{counts(r.by_policy_effect)}</dd>
                <dt>By status</dt>
                <dd>{counts(r.by_status)}</dd>
              </dl>
              <h2>Relaxed calls</h2>
              {r.relaxed_calls.length === 0 ? (
                <p className="muted">None: the policy would have decided every call the same.</p>
              ) : (
                <table data-testid="relaxed-calls">
                  <thead>
                    <tr>
                      <th>When</th>
                      <th>Tool</th>
                      <th>Policy would have</th>
                      <th>Rule</th>
                      <th>Status</th>
                    </tr>
                  </thead>
                  <tbody>
                    {r.relaxed_calls.map((c) => (
                      <tr key={c.protected_action_id}>
                        <td>
                          <Link to={orgPath(orgId, `/actions/${c.protected_action_id}`)}>
                            <When at={c.created_at} />
                          </Link>
                        </td>
                        <td>
                          {c.tool} <span className="muted">({c.environment})</span>
                        </td>
                        <td>{c.policy_effect?.replace(/_/g, " ") ?? "—"}</td>
                        <td>{c.rule_id ?? "—"}</td>
                        <td>{c.status}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
              {r.relaxed_calls_truncated && (
                <p className="muted">Only the newest relaxed calls are listed.</p>
              )}
            </>
          );
        }}
      </Loaded>
    </main>
  );
}
