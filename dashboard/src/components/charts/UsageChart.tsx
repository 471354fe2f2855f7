import { Box, Stack, Text } from "@mantine/core";
import type { Usage } from "@countersign/protocol/wire";
import { axis, fillOf, label, primaryFill } from "./svg.js";

const W = 640;
const H = 160;
const PAD = { left: 44, right: 8, top: 10, bottom: 22 };

/**
 * Protected actions per calendar month (UTC), oldest first, against the plan's monthly limit
 * (a dashed line; none when the plan has no limit). A month over the limit takes the "denied"
 * colour, and the caption says the figures in words.
 */
export function UsageChart({ usage }: { usage: Usage }) {
  const months = [...usage.months].reverse();
  const limit = usage.protected_actions.limit;
  const max = Math.max(1, limit ?? 0, ...months.map((m) => m.protected_actions));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const slot = plotW / months.length;
  const barW = slot * 0.7;
  const y = (n: number) => H - PAD.bottom - (n / max) * plotH;
  const over = fillOf("plan_limit");
  return (
    <Stack component="figure" gap="xs" m={0} data-testid="usage-chart">
      <Box
        component="svg"
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label={`Protected actions per month; this month ${usage.protected_actions.used}${limit === null ? ", no monthly limit" : ` of ${limit}`}`}
        w="100%"
        h="auto"
      >
        <line x1={PAD.left} x2={W - PAD.right} y1={H - PAD.bottom} y2={H - PAD.bottom} style={axis} />
        {months.map((m, i) => (
          <g key={m.month} data-month={m.month} data-count={m.protected_actions}>
            <rect
              x={PAD.left + i * slot + (slot - barW) / 2}
              y={y(m.protected_actions)}
              width={barW}
              height={H - PAD.bottom - y(m.protected_actions)}
              style={limit !== null && m.protected_actions > limit ? over : primaryFill}
            >
              <title>{`${m.month}: ${m.protected_actions}`}</title>
            </rect>
            <text x={PAD.left + i * slot + slot / 2} y={H - 8} textAnchor="middle" style={label}>
              {m.month.slice(2)}
            </text>
          </g>
        ))}
        {limit !== null && (
          <g data-testid="usage-limit">
            <line
              x1={PAD.left}
              x2={W - PAD.right}
              y1={y(limit)}
              y2={y(limit)}
              strokeDasharray="4 3"
              style={{ stroke: over.fill }}
            />
            <text
              x={PAD.left - 4}
              y={y(limit) + 3}
              textAnchor="end"
              style={{ ...label, fill: "var(--mantine-color-red-text)" }}
            >
              {limit}
            </text>
          </g>
        )}
      </Box>
      <Text component="figcaption" size="sm">
        This month ({usage.month}): <strong data-testid="usage-used">{usage.protected_actions.used}</strong>{" "}
        {limit === null ? (
          "protected actions; the plan has no monthly limit."
        ) : (
          <>
            of <strong data-testid="usage-limit-value">{limit}</strong> protected actions (
            {Math.round((usage.protected_actions.used / limit) * 100)}% of the monthly limit).
          </>
        )}
      </Text>
    </Stack>
  );
}
