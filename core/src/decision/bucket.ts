/** The per-key token bucket of SPEC 8.2, shared by every replica. */
export const BUCKET = { burst: 120, refillPerSecond: 20 } as const;

/**
 * The bucket's take as one INSERT .. ON CONFLICT DO UPDATE, given the SQL
 * that stands for each input. Exact across replicas: ON CONFLICT DO UPDATE
 * locks the bucket's row before it computes the new values, so the clock is
 * read after any wait for the lock (read once, fenced by OFFSET 0), and
 * refilled_at never moves back: every second of refill is credited once,
 * whichever replica asks. `wait` is 0 when the tokens were taken, else the
 * seconds until there are enough.
 *
 * `onlyWhenEnough`: the row is changed, and returned, only when the tokens
 * are there (a warm decision's write, record/store.ts, which is answered fresh
 * otherwise); else it is always changed and `wait` says the answer (the
 * admission, admission.ts).
 */
export function bucketTake(p: {
  keyId: string;
  from: string;
  cost: string;
  burst: string;
  refill: string;
  onlyWhenEnough: boolean;
  /** A condition on `from`'s rows: only those are taken for (a batch's warm rows, record/batch-store.ts). */
  where?: string;
}): string {
  const { cost, burst, refill } = p;
  const refilled = `least(${burst}, b.tokens + extract(epoch from s.ts - b.refilled_at) * ${refill})`;
  return `insert into rate_limit_buckets as b (api_key_id, tokens, refilled_at, wait)
     select ${p.keyId}, case when ${burst} >= ${cost} then ${burst} - ${cost} else ${burst} end, clock_timestamp(),
            case when ${burst} >= ${cost} then 0 else (${cost} - ${burst}) / ${refill} end
       from ${p.from}${where(p.where, p.onlyWhenEnough ? `${burst} >= ${cost}` : undefined)}
     on conflict (api_key_id) do update set (tokens, refilled_at, wait) = (
       select case when r.t >= ${cost} then r.t - ${cost} else r.t end, r.ts,
              case when r.t >= ${cost} then 0 else (${cost} - r.t) / ${refill} end
         from (select ${refilled} as t, s.ts
                 from (select greatest(clock_timestamp(), b.refilled_at) as ts offset 0) s offset 0) r)${
                   p.onlyWhenEnough
                     ? `
      where (select ${refilled} >= ${cost} from (select greatest(clock_timestamp(), b.refilled_at) as ts) s)`
                     : ""
                 }`;
}

function where(...conditions: Array<string | undefined>): string {
  const all = conditions.filter((c) => c !== undefined);
  return all.length ? ` where ${all.join(" and ")}` : "";
}

/**
 * The key's last-used time, touched by the statement that took its tokens
 * (`bucket`: a CTE returning `api_key_id, refilled_at`), at most once a minute
 * so a busy key's row is not rewritten on every call.
 */
export function touchLastUsed(bucket: string): string {
  return `update api_keys k set last_used_at = ${bucket}.refilled_at from ${bucket}
   where k.id = ${bucket}.api_key_id
     and (k.last_used_at is null or k.last_used_at < ${bucket}.refilled_at - interval '1 minute')`;
}
