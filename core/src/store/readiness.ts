import type { Pool } from "./pool.js";

/** Ready when the database answers a trivial query within 2 seconds. */
export function databaseReadiness(pool: Pool): () => Promise<string | undefined> {
  return async () => {
    const timeout = new Promise<string>((resolve) =>
      setTimeout(() => resolve("database did not answer"), 2000).unref(),
    );
    const ping = pool.query("select 1").then(
      () => undefined,
      () => "database unavailable",
    );
    return Promise.race([ping, timeout]);
  };
}
