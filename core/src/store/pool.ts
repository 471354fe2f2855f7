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

/** Run `fn` in one transaction on one client; roll back on any error. */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
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
