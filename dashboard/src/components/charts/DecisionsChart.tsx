import { Box, Group, Stack, Text } from "@mantine/core";
import type { Overview } from "@countersign/protocol/wire";
import { StatusBadge } from "../StatusBadge.js";
import { axis, fillOf, label } from "./svg.js";

const DAY_MS = 86_400_000;
const W = 640;
const H = 180;
const PAD = { left: 34, right: 8, top: 8, bottom: 22 };

/** The period's days, oldest first, each with its decisions by status (empty days included). */
function daysOf(overview: Overview): { day: string; by_status: Record<string, number> }[] {
  const known = new Map(overview.actions.by_day.map((d) => [d.day, d.by_status]));
  const last = Date.parse(`${overview.period.to.slice(0, 10)}T00:00:00Z`);
  return Array.from({ length: overview.period.days }, (_, i) => {
    const day = new Date(last - (overview.period.days - 1 - i) * DAY_MS).toISOString().slice(0, 10);
    return { day, by_status: known.get(day) ?? {} };
  });
}

/**
 * Decisions per UTC day, stacked by status in each state's one colour; the legend names each
 * status with its count, so no meaning rests on colour alone, and each bar's part has its title.
 */
export function DecisionsChart({ overview }: { overview: Overview }) {
  const days = daysOf(overview);
  const statuses = Object.keys(overview.actions.by_status).sort();
  const totals = days.map((d) => Object.values(d.by_status).reduce((a, b) => a + b, 0));
  const max = Math.max(1, ...totals);
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const slot = plotW / days.length;
  const barW = Math.max(2, slot * 0.75);
  const y = (n: number) => (n / max) * plotH;
  return (
    <Stack component="figure" gap="xs" m={0} data-testid="decisions-chart">
      <Box
        component="svg"
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label={`Decisions per day over the last ${overview.period.days} days: ${overview.actions.total} in all`}
        w="100%"
        h="auto"
      >
        <line x1={PAD.left} x2={W - PAD.right} y1={H - PAD.bottom} y2={H - PAD.bottom} style={axis} />
        <text x={PAD.left - 4} y={PAD.top + 8} textAnchor="end" style={label}>
          {max}
        </text>
        <text x={PAD.left - 4} y={H - PAD.bottom} textAnchor="end" style={label}>
          0
        </text>
        {days.map((d, i) => {
          let base = H - PAD.bottom;
          const x = PAD.left + i * slot + (slot - barW) / 2;
          return (
            <g key={d.day} data-day={d.day} data-total={totals[i]}>
              {statuses
                .filter((s) => d.by_status[s])
                .map((s) => {
                  const h = y(d.by_status[s]!);
                  base -= h;
                  return (
                    <rect key={s} data-status={s} x={x} y={base} width={barW} height={h} style={fillOf(s)}>
                      <title>{`${d.day}: ${d.by_status[s]} ${s.replace(/_/g, " ")}`}</title>
                    </rect>
                  );
                })}
            </g>
          );
        })}
        <text x={PAD.left} y={H - 6} style={label}>
          {days[0]?.day}
        </text>
        <text x={W - PAD.right} y={H - 6} textAnchor="end" style={label}>
          {days[days.length - 1]?.day}
        </text>
      </Box>
      <Group component="figcaption" gap="md">
        {statuses.map((s) => (
          <Group key={s} gap={6} wrap="nowrap">
            <StatusBadge status={s} />
            <Text span size="sm" fw={600} data-testid={`status-${s}`}>
              {overview.actions.by_status[s]}
            </Text>
          </Group>
        ))}
        {statuses.length === 0 && (
          <Text size="sm" c="dimmed">
            No decisions in this period.
          </Text>
        )}
      </Group>
    </Stack>
  );
}
