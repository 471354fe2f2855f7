import { Anchor } from "@mantine/core";
import type { ObserveWindow } from "@countersign/protocol/wire";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { orgPath } from "../../session/organization.js";
import { DataTable, type Column } from "../../components/DataTable.js";
import { When } from "../../components/When.js";
import { WindowState } from "./WindowState.js";

/** Observe windows, newest first, each with its report. */
export function WindowTable({
  orgId,
  windows,
  showAgent = true,
  empty,
}: {
  orgId: string;
  windows: ObserveWindow[];
  showAgent?: boolean;
  empty: ReactNode;
}) {
  const columns: Column<ObserveWindow>[] = [
    ...(showAgent
      ? [
          {
            key: "agent",
            header: "Agent",
            sortValue: (w: ObserveWindow) => w.agent.name,
            render: (w: ObserveWindow) => (
              <Anchor component={Link} to={orgPath(orgId, `/agents/${w.agent.id}`)}>
                {w.agent.name}
              </Anchor>
            ),
          },
        ]
      : []),
    {
      key: "state",
      header: "State",
      sortValue: (w) => w.state,
      render: (w) => <WindowState window={w} />,
    },
    {
      key: "started",
      header: "Started",
      align: "right",
      sortValue: (w) => w.started_at,
      render: (w) => <When at={w.started_at} />,
    },
    {
      key: "ends",
      header: "Ends or ended",
      align: "right",
      sortValue: (w) => w.ended_at ?? w.ends_at,
      render: (w) => <When at={w.ended_at ?? w.ends_at} />,
    },
    { key: "keys", header: "Keys", render: (w) => (w.live ? "live and test" : "test") },
    {
      key: "report",
      header: "Report",
      render: (w) => (
        <Anchor
          component={Link}
          to={orgPath(orgId, `/observe/${w.id}`)}
          aria-label={`Report of the window started ${w.started_at}`}
        >
          report
        </Anchor>
      ),
    },
  ];
  return (
    <DataTable
      testId="observe-windows"
      caption="Observe windows"
      rows={windows}
      rowKey={(w) => w.id}
      columns={columns}
      empty={empty}
    />
  );
}
