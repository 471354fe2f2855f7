import type { ObserveWindow } from "@countersign/protocol/wire";
import { Link } from "react-router";
import { orgPath } from "../../session/organization.js";
import { When } from "../../components/When.js";

/** Observe windows, newest first, each with its report. */
export function WindowTable({
  orgId,
  windows,
  showAgent = true,
}: {
  orgId: string;
  windows: ObserveWindow[];
  showAgent?: boolean;
}) {
  return (
    <table data-testid="observe-windows">
      <thead>
        <tr>
          {showAgent && <th>Agent</th>}
          <th>State</th>
          <th>Started</th>
          <th>Ends or ended</th>
          <th>Keys</th>
          <th>Report</th>
        </tr>
      </thead>
      <tbody>
        {windows.map((w) => (
          <tr key={w.id}>
            {showAgent && (
              <td>
                <Link to={orgPath(orgId, `/agents/${w.agent.id}`)}>{w.agent.name}</Link>
              </td>
            )}
            <td>{w.state === "open" ? "open" : `ended (${w.end_reason?.replace(/_/g, " ") ?? "ended"})`}</td>
            <td>
              <When at={w.started_at} />
            </td>
            <td>
              <When at={w.ended_at ?? w.ends_at} />
            </td>
            <td>{w.live ? "live and test" : "test"}</td>
            <td>
              <Link
                to={orgPath(orgId, `/observe/${w.id}`)}
                aria-label={`Report of the window started ${w.started_at}`}
              >
                report
              </Link>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
