import type { Queryable } from "@countersign/core/store";

/**
 * Count one request in each window named by `keys` (parallel arrays of limit and window length),
 * or in none when any is full: the seconds until the fullest window ends, 0 when counted.
 */
export async function hitRateLimitCounters(
  db: Queryable,
  keys: string[],
  limits: number[],
  windowSeconds: number[],
): Promise<number> {
  const { rows } = await db.query<{ wait: number }>("select hit_rate_limits($1, $2, $3) as wait", [
    keys,
    limits,
    windowSeconds,
  ]);
  return rows[0]!.wait;
}

/** Remove windows that ended more than a day ago (no limit looks that far back). */
export async function deleteOldRateLimitCounters(db: Queryable): Promise<void> {
  await db.query("delete from rate_limit_counters where window_start < now() - interval '1 day'");
}
