import { Anchor, Paper, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import type { ObserveReport } from "@countersign/protocol/wire";
import { Link, useParams } from "react-router";
import { observeApi } from "../../api/observe.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { DataTable } from "../../components/DataTable.js";
import { EmptyState } from "../../components/EmptyState.js";
import { Facts } from "../../components/Facts.js";
import { Loaded } from "../../components/Loading.js";
import { PageHeader } from "../../components/PageHeader.js";
import { StatusBadge } from "../../components/StatusBadge.js";
import { When } from "../../components/When.js";
import { WindowState } from "./WindowState.js";

type RelaxedCall = ObserveReport["relaxed_calls"][number];

const counts = (m: Record<string, number>) =>
  Object.entries(m)
    .map(([k, n]) => `${k.replace(/_/g, " ")}: ${n}`)
    .join(", ") || "none";

/** A figure of the report, large, with what it counts. */
function Figure({ label, value, testId }: { label: string; value: number; testId: string }) {
  return (
    <Paper withBorder p="md">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fz={28} fw={650} data-testid={testId}>
        {value}
      </Text>
    </Paper>
  );
}

/** What a window let through: counts over every call in it, and the newest relaxed calls. */
export function ObserveReportPage() {
  const { orgId } = useCurrentOrganization();
  const { windowId = "" } = useParams();
  const report = useQuery({
    queryKey: ["observe-report", windowId],
    queryFn: () => observeApi.report(orgId, windowId),
  });
  const w = report.data?.observe_window;
  return (
    <Stack gap="lg">
      <PageHeader
        title={w ? `Observe window of ${w.agent.name}` : "Observe window"}
        badge={w && <WindowState window={w} />}
        description="What the window allowed that the agent's policy would have refused or held (the relaxed calls), over every call the agent made in it."
      />
      <Loaded query={report}>
        {(r) => {
          const w = r.observe_window;
          return (
            <>
              <SimpleGrid cols={{ base: 1, xs: 2 }} maw={480}>
                <Figure label="Decisions" value={r.decisions} testId="report-decisions" />
                <Figure label="Relaxed" value={r.relaxed} testId="report-relaxed" />
              </SimpleGrid>
              <Facts
                items={[
                  {
                    term: "Agent",
                    value: (
                      <Anchor component={Link} to={orgPath(orgId, `/agents/${w.agent.id}`)}>
                        {w.agent.name}
                      </Anchor>
                    ),
                  },
                  {
                    term: "Started",
                    value: (
                      <>
                        <When at={w.started_at} /> for {w.hours} hours,{" "}
                        {w.live ? "live and test keys" : "test keys"}
                      </>
                    ),
                  },
                  {
                    term: w.ended_at ? "Ended" : "Ends",
                    value: <When at={w.ended_at ?? w.ends_at} />,
                  },
                  {
                    term: "Reason",
                    value: w.reason ?? (
                      <Text span inherit c="dimmed">
                        none given
                      </Text>
                    ),
                  },
                  { term: "By policy effect", value: counts(r.by_policy_effect) },
                  { term: "By status", value: counts(r.by_status) },
                ]}
              />
              <Stack gap="sm">
                <Title order={2} size="h3">
                  Relaxed calls
                </Title>
                <DataTable<RelaxedCall>
                  testId="relaxed-calls"
                  caption="Relaxed calls, newest first"
                  rows={r.relaxed_calls}
                  rowKey={(c) => c.protected_action_id}
                  empty={
                    <EmptyState title="No relaxed calls.">
                      The policy would have decided every call of this window the same.
                    </EmptyState>
                  }
                  columns={[
                    {
                      key: "when",
                      header: "When",
                      align: "right",
                      sortValue: (c) => c.created_at,
                      render: (c) => (
                        <Anchor component={Link} to={orgPath(orgId, `/actions/${c.protected_action_id}`)}>
                          <When at={c.created_at} />
                        </Anchor>
                      ),
                    },
                    {
                      key: "tool",
                      header: "Tool",
                      sortValue: (c) => c.tool,
                      render: (c) => (
                        <>
                          {c.tool}{" "}
                          <Text span size="xs" c="dimmed">
                            ({c.environment})
                          </Text>
                        </>
                      ),
                    },
                    {
                      key: "effect",
                      header: "Policy would have",
                      sortValue: (c) => c.policy_effect,
                      render: (c) => (c.policy_effect ? <StatusBadge status={c.policy_effect} /> : "—"),
                    },
                    { key: "rule", header: "Rule", render: (c) => c.rule_id ?? "—" },
                    {
                      key: "status",
                      header: "Status",
                      sortValue: (c) => c.status,
                      render: (c) => <StatusBadge status={c.status} />,
                    },
                  ]}
                />
                {r.relaxed_calls_truncated && (
                  <Text size="sm" c="dimmed">
                    Only the newest relaxed calls are listed.
                  </Text>
                )}
              </Stack>
            </>
          );
        }}
      </Loaded>
    </Stack>
  );
}
