import { BarChart, DonutChart } from "@mantine/charts";
import "@mantine/charts/styles.layer.css";
import { Box, Group, SimpleGrid, Stack, Text } from "@mantine/core";
import type { SimulationReport } from "@countersign/protocol/policy";
import { statusColor } from "../../../theme/status.js";
import { changeSummary, changes, effectSummary, effectTotals, effectWords } from "./report-figures.js";

// The changes are not states: their colours stay clear of the state colours (theme/status.ts).
const changeColor: Record<(typeof changes)[number][0], string> = {
  same: "gray.5",
  less_restricted: "pink.6",
  more_restricted: "indigo.5",
  other_rule: "lime.7",
  other_approvers: "grape.6",
  not_evaluable: "dark.3",
};

/**
 * A report as two pictures: calls by effect under the baseline and the candidate (bars), and how
 * the calls changed (a donut). Loaded on its own (charts are heavy); each picture's figures are its
 * caption, so nothing is only in the picture.
 */
export default function ReportCharts({
  report,
  baseline,
  candidate,
}: {
  report: SimulationReport;
  baseline: string;
  candidate: string;
}) {
  const totals = effectTotals(report).map((t) => ({
    effect: effectWords[t.effect],
    baseline: t.baseline ?? 0,
    candidate: t.candidate,
  }));
  const changed = changes
    .map(([k, name]) => ({ name, value: report.counts[k], color: changeColor[k] }))
    .filter((c) => c.value > 0);
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg" data-testid="report-charts">
      <Stack gap={4} component="figure" m={0}>
        <Box aria-hidden>
          <BarChart
            h={200}
            data={totals}
            dataKey="effect"
            withLegend
            tickLine="none"
            gridAxis="y"
            barChartProps={{ accessibilityLayer: false }}
            series={[
              ...(report.matrix ? [{ name: "baseline", label: baseline, color: statusColor("active") }] : []),
              { name: "candidate", label: candidate, color: statusColor("shadow") },
            ]}
          />
        </Box>
        <Text component="figcaption" size="sm" c="dimmed" data-testid="effects-summary">
          {effectSummary(report, baseline, candidate)}
        </Text>
      </Stack>
      <Stack gap={4} component="figure" m={0} align="center">
        <Box aria-hidden>
          {changed.length > 0 ? (
            <DonutChart
              data={changed}
              size={150}
              thickness={24}
              chartLabel={report.counts.recorded}
              withLabelsLine={false}
              pieChartProps={{ accessibilityLayer: false }}
              // recharts makes a pie's sectors a Tab stop by default: inside an aria-hidden picture
              // (the caption says the same in words) nothing may take focus.
              pieProps={{ rootTabIndex: -1 }}
            />
          ) : null}
        </Box>
        <Group gap="xs" justify="center" aria-hidden>
          {changed.map((c) => (
            <Group key={c.name} gap={4} wrap="nowrap">
              <Box w={10} h={10} bg={c.color} style={{ borderRadius: 2 }} />
              <Text size="xs">
                {c.name} {c.value}
              </Text>
            </Group>
          ))}
        </Group>
        <Text component="figcaption" size="sm" c="dimmed" data-testid="changes-summary">
          {changeSummary(report)}
        </Text>
      </Stack>
    </SimpleGrid>
  );
}
