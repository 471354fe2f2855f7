import pg from "pg";

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

export interface PoolOptions {
  /** Shown in pg_stat_activity, so an operator can tell api from gateway connections. */
  applicationName: string;
  max?: number;
  /**
   * Plan every prepared statement once per connection (plan_cache_mode =
   * force_generic_plan). The Gateway's statements look rows up by key; left
   * to choose, PostgreSQL kept custom plans for some of them and planned
   * them again on every call (pg_stat_statements under `make profile`: 2 ms
   * of planning per tools/call for the admission alone).
   */
  genericPlans?: boolean;
}

export function createPool(url: string, opts: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    application_name: opts.applicationName,
    max: opts.max ?? 20,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    ...(opts.genericPlans ? { options: "-c plan_cache_mode=force_generic_plan" } : {}),
  });
  // An idle client that loses its connection emits 'error' on the pool; without a
  // listener that would crash the process. The next query reports the outage.
  pool.on("error", () => undefined);
  // pg-pool listens for a client's errors only while it is idle. A client checked out
  // (a transaction between statements, a session advisory lock held for a discovery)
  // that loses its connection (57P01 on a fast shutdown, a killed server) emits 'error'
  // on itself, which with no listener kills the process. Its current or next query
  // fails instead (answered 503), and on release the pool drops it, since it is no
  // longer queryable.
  pool.on("connect", (client) => client.on("error", () => undefined));
  return pool;
}

/**
 * SQLSTATEs after which PostgreSQL has rolled the whole transaction back and
 * running it again from the start is the documented remedy: a deadlock
 * (40P01) and a serialization failure (40001).
 */
const RETRYABLE = new Set(["40P01", "40001"]);

/** Attempts of one transaction before its last failure is thrown. */
export const TRANSACTION_ATTEMPTS = 4;

export const isRetryableTransactionError = (err: unknown): boolean =>
  RETRYABLE.has((err as { code?: unknown } | null)?.code as string);

/**
 * Run `fn` in one transaction on one client; roll back on any error. A
 * deadlock or serialization failure is retried (fn runs again from the start
 * on a fresh transaction) up to TRANSACTION_ATTEMPTS times, after a short
 * random pause that grows with each attempt so the transactions that collided
 * do not collide again in step: a request then gets its normal answer instead
 * of a 500 for a conflict it did not cause. `fn` must therefore do nothing
 * outside the database it cannot repeat.
 */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await once(pool, fn);
    } catch (err) {
      if (attempt >= TRANSACTION_ATTEMPTS || !isRetryableTransactionError(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * 2 ** attempt));
    }
  }
}

async function once<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("begin");
    const result = await fn(client);
    await client.query("commit");
    return result;
  } catch (err) {
    await client.query("rollback").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
