import { lazy, Suspense } from "react";
import { Paper, SimpleGrid, Stack, Table, Text, Title } from "@mantine/core";
import type { SimulationReport as Report } from "@countersign/protocol/policy";
import { DataTable } from "../../components/DataTable.js";
import { LoadingLine } from "../../components/Loading.js";
import { effects, effectWords } from "./charts/report-figures.js";

// The charts (recharts) are loaded when a report is first shown, never with the page.
const ReportCharts = lazy(() => import("./charts/ReportCharts.js"));

const countNames: [keyof Report["counts"], string][] = [
  ["recorded", "Recorded calls"],
  ["evaluated", "Evaluated"],
  ["not_evaluable", "Not evaluable"],
  ["argument_dependent", "Depend on arguments"],
  ["less_restricted", "Less restricted"],
  ["more_restricted", "More restricted"],
  ["other_rule", "Decided by another rule"],
  ["other_approvers", "Other approvers"],
  ["same", "Same"],
];

type Difference = Report["differences"][number];

/**
 * A simulation's (or the shadow's) report: its pictures, the counts, the baseline-by-candidate
 * matrix, and the calls decided differently. `baseline` and `candidate` name the two sides.
 */
export function SimulationReport({
  report,
  caption,
  baseline = "Baseline",
  candidate = "Candidate",
}: {
  report: Report;
  caption: string;
  baseline?: string;
  candidate?: string;
}) {
  return (
    <Stack gap="md" data-testid="simulation-report">
      <Title order={3} size="h4">
        {caption}
      </Title>
      <Suspense fallback={<LoadingLine />}>
        <ReportCharts report={report} baseline={baseline} candidate={candidate} />
      </Suspense>
      <SimpleGrid component="dl" cols={{ base: 2, sm: 3, md: 5 }} spacing="xs" m={0} data-testid="counts">
        {countNames.map(([k, name]) => (
          <Paper key={k} withBorder p="xs" data-count={k}>
            <Text component="dt" size="xs" c="dimmed">
              {name}
            </Text>
            <Text component="dd" m={0} fw={700} size="lg" ta="right">
              {report.counts[k]}
            </Text>
          </Paper>
        ))}
      </SimpleGrid>
      {report.matrix ? (
        <Table.ScrollContainer minWidth={360}>
          <Table data-testid="matrix" withTableBorder withColumnBorders maw={560}>
            <Table.Caption>
              {baseline} (rows) by {candidate.toLowerCase()} (columns)
            </Table.Caption>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">
                  {baseline} \ {candidate.toLowerCase()}
                </Table.Th>
                {effects.map((e) => (
                  <Table.Th key={e} scope="col" ta="right">
                    {effectWords[e]}
                  </Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {effects.map((b) => (
                <Table.Tr key={b}>
                  <Table.Th scope="row">{effectWords[b]}</Table.Th>
                  {effects.map((c) => (
                    <Table.Td key={c} ta="right" fw={b === c ? undefined : 700}>
                      {report.matrix![b][c]}
                    </Table.Td>
                  ))}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      ) : (
        <Text c="dimmed" size="sm">
          No baseline: the candidate would allow {report.candidate_effects.allow}, hold{" "}
          {report.candidate_effects.require_approval} for approval and deny {report.candidate_effects.deny}.
        </Text>
      )}
      <Title order={4} size="h5">
        Calls decided differently
      </Title>
      <DataTable<Difference>
        testId="differences"
        rows={report.differences}
        rowKey={(d) => `${d.tool} ${d.action} ${d.amount ?? ""} ${d.currency ?? ""} ${d.change}`}
        empty={
          <Text c="dimmed" size="sm">
            None: every call is decided as before.
          </Text>
        }
        columns={[
          { key: "tool", header: "Tool", sortValue: (d) => d.tool, render: (d) => d.tool },
          { key: "action", header: "Action", sortValue: (d) => d.action, render: (d) => d.action },
          {
            key: "amount",
            header: "Amount",
            align: "right",
            sortValue: (d) => (d.amount ? Number(d.amount) : null),
            render: (d) => (d.amount ? `${d.amount} ${d.currency ?? ""}` : "—"),
          },
          {
            key: "count",
            header: "Calls",
            align: "right",
            sortValue: (d) => d.count,
            render: (d) => d.count,
          },
          { key: "change", header: "Change", render: (d) => d.change.replace("_", " ") },
          {
            key: "baseline",
            header: baseline,
            render: (d) => `${d.baseline.effect} (${d.baseline.rule_id ?? "default"})`,
          },
          {
            key: "candidate",
            header: candidate,
            render: (d) => `${d.candidate.effect} (${d.candidate.rule_id ?? "default"})`,
          },
        ]}
      />
      {report.differences_truncated && (
        <Text c="dimmed" size="sm">
          Only the first differences are listed; the counts cover every call.
        </Text>
      )}
    </Stack>
  );
}
