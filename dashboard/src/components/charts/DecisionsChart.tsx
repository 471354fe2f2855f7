import type { Overview } from "@countersign/protocol/wire";

// Colors that keep 3:1 against white and against each other's neighbours; unknown statuses take grey.
const colors: Record<string, string> = {
  authorized: "#1b7d3a",
  executed: "#2f6fb0",
  succeeded: "#2f6fb0",
  pending_approval: "#b06f00",
  approved: "#5b8c2a",
  denied: "#b3261e",
  rejected: "#8e2a5b",
  expired: "#6b5ca5",
  cancelled: "#5c6670",
  failed: "#d0461a",
};
const colorOf = (status: string) => colors[status] ?? "#7a8590";

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

/** Decisions per UTC day, stacked by status: plain SVG, with the numbers in a table for screen readers. */
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
    <figure className="chart" data-testid="decisions-chart">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label={`Decisions per day over the last ${overview.period.days} days: ${overview.actions.total} in all`}
      >
        <line x1={PAD.left} x2={W - PAD.right} y1={H - PAD.bottom} y2={H - PAD.bottom} stroke="#8a96a3" />
        <text x={PAD.left - 4} y={PAD.top + 8} textAnchor="end" fontSize="10" fill="#4d5761">
          {max}
        </text>
        <text x={PAD.left - 4} y={H - PAD.bottom} textAnchor="end" fontSize="10" fill="#4d5761">
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
                    <rect key={s} data-status={s} x={x} y={base} width={barW} height={h} fill={colorOf(s)}>
                      <title>{`${d.day}: ${d.by_status[s]} ${s}`}</title>
                    </rect>
                  );
                })}
            </g>
          );
        })}
        <text x={PAD.left} y={H - 6} fontSize="10" fill="#4d5761">
          {days[0]?.day}
        </text>
        <text x={W - PAD.right} y={H - 6} textAnchor="end" fontSize="10" fill="#4d5761">
          {days[days.length - 1]?.day}
        </text>
      </svg>
      <figcaption>
        <ul className="legend">
          {statuses.map((s) => (
            <li key={s}>
              <span className="swatch" style={{ background: colorOf(s) }} aria-hidden="true" /> {s}{" "}
              <strong data-testid={`status-${s}`}>{overview.actions.by_status[s]}</strong>
            </li>
          ))}
          {statuses.length === 0 && <li className="muted">No decisions in this period.</li>}
        </ul>
      </figcaption>
    </figure>
  );
}
