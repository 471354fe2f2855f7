import type { Queryable } from "@countersign/core/store";

export interface DecisionsOnDay {
  /** The UTC day, YYYY-MM-DD. */
  day: string;
  by_status: Record<string, number>;
}

/**
 * Decisions (protected actions by `created_at`) per UTC day of the period and their status now,
 * oldest day first; days without any are absent (the dashboard's chart draws them empty).
 */
export async function decisionsByDay(
  db: Queryable,
  organizationId: string,
  from: Date,
  to: Date,
): Promise<DecisionsOnDay[]> {
  const { rows } = await db.query<{ day: string; status: string; n: number }>(
    `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, status, count(*)::int as n
       from protected_actions
      where organization_id = $1 and created_at >= $2 and created_at < $3
      group by 1, 2 order by 1, 2`,
    [organizationId, from, to],
  );
  const days = new Map<string, Record<string, number>>();
  for (const r of rows) {
    const d = days.get(r.day) ?? {};
    d[r.status] = r.n;
    days.set(r.day, d);
  }
  return [...days].map(([day, by_status]) => ({ day, by_status }));
}
