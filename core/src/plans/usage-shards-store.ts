import type { Queryable } from "../store/queryable.js";

/**
 * An organization's monthly count is the sum of its rows in usage_counters:
 * shard 0 (the exact path near a limit) and one row per PostgreSQL backend
 * that counted on the far path (`1 + pid % 32000`, migrations 0017 and 0028),
 * so that concurrent decisions never wait on one row. Pooled connections come
 * and go (a pool closes a connection idle for 30 s), and every new backend
 * pid that counts adds a row: over a month an organization could gather
 * thousands, and every count of a limited plan sums them twice. Folding moves
 * the shard rows of such an organization and month into shard 0 and keeps
 * the total.
 *
 * Why it is safe without any lock of its own: the fold is one statement, so
 * every reader sees the total before or after it, never between. A shard row
 * that a decision's count has changed and not yet committed holds its row
 * lock; the fold's delete waits for it and deletes the committed value. A
 * count that meets a row the fold deleted and has not committed waits for
 * the fold, then inserts the row again. Shard 0 is only ever incremented.
 * One organization and month per statement: its rows are the only ones it
 * locks, so it cannot deadlock with a batch counting several organizations.
 */

/** An organization and month is folded once it has more than this many shard rows. */
export const FOLD_ABOVE_SHARDS = 64;

/** Organizations and months folded per pass; a pass that folds this many says more is left. */
export const FOLDS_PER_PASS = 100;

const FOLD = `with gone as (
  delete from usage_counters where organization_id = $1 and month = $2 and shard <> 0
  returning protected_actions
), kept as (
  insert into usage_counters as u (organization_id, month, shard, protected_actions)
  select $1, $2, 0, sum(protected_actions) from gone having count(*) > 0
  on conflict (organization_id, month, shard) do update set protected_actions = u.protected_actions + excluded.protected_actions
)
select count(*)::int as folded from gone`;

/** Folds the shard rows of one organization and month into shard 0; answers how many rows it folded. */
export async function foldUsageShards(db: Queryable, organizationId: string, month: string): Promise<number> {
  const { rows } = await db.query<{ folded: number }>(FOLD, [organizationId, month]);
  return rows[0]!.folded;
}

/**
 * One pass: folds every organization and month with more than `above` shard
 * rows (up to `most` of them, each in its own statement). Answers whether
 * more may be left.
 */
export async function foldCrowdedUsageShards(
  db: Queryable,
  { above = FOLD_ABOVE_SHARDS, most = FOLDS_PER_PASS }: { above?: number; most?: number } = {},
): Promise<{ folded: number; more: boolean }> {
  const { rows } = await db.query<{ organization_id: string; month: string }>(
    `select organization_id, to_char(month, 'YYYY-MM-DD') as month from usage_counters
      where shard <> 0 group by organization_id, month having count(*) > $1
      order by organization_id, month limit $2`,
    [above, most],
  );
  for (const r of rows) await foldUsageShards(db, r.organization_id, r.month);
  return { folded: rows.length, more: rows.length === most };
}
