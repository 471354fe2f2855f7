import type { Usage } from "@countersign/protocol/wire";

const W = 640;
const H = 160;
const PAD = { left: 44, right: 8, top: 10, bottom: 22 };

/**
 * Protected actions per calendar month (UTC), oldest first, against the plan's monthly limit
 * (a dashed line; none when the plan has no limit). Plain SVG.
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
  return (
    <figure className="chart" data-testid="usage-chart">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label={`Protected actions per month; this month ${usage.protected_actions.used}${limit === null ? ", no monthly limit" : ` of ${limit}`}`}
      >
        <line x1={PAD.left} x2={W - PAD.right} y1={H - PAD.bottom} y2={H - PAD.bottom} stroke="#8a96a3" />
        {months.map((m, i) => (
          <g key={m.month} data-month={m.month} data-count={m.protected_actions}>
            <rect
              x={PAD.left + i * slot + (slot - barW) / 2}
              y={y(m.protected_actions)}
              width={barW}
              height={H - PAD.bottom - y(m.protected_actions)}
              fill={limit !== null && m.protected_actions > limit ? "#b3261e" : "#2f6fb0"}
            >
              <title>{`${m.month}: ${m.protected_actions}`}</title>
            </rect>
            <text
              x={PAD.left + i * slot + slot / 2}
              y={H - 8}
              textAnchor="middle"
              fontSize="9"
              fill="#4d5761"
            >
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
              stroke="#b3261e"
              strokeDasharray="4 3"
            />
            <text x={PAD.left - 4} y={y(limit) + 3} textAnchor="end" fontSize="10" fill="#b3261e">
              {limit}
            </text>
          </g>
        )}
      </svg>
      <figcaption>
        This month ({usage.month}): <strong data-testid="usage-used">{usage.protected_actions.used}</strong>{" "}
        {limit === null ? (
          "protected actions; the plan has no monthly limit."
        ) : (
          <>
            of <strong data-testid="usage-limit-value">{limit}</strong> protected actions (
            {Math.round((usage.protected_actions.used / limit) * 100)}% of the monthly limit).
          </>
        )}
      </figcaption>
    </figure>
  );
}
