import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { createPool, inTransaction, isDatabaseUnavailable } from "./index.js";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase({ migrate: false });
});
afterAll(async () => db?.drop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a pooled client whose connection is lost while it is checked out", () => {
  it("fails its transaction as 'database unavailable', crashes nothing, and the pool serves again", async () => {
    const pool = createPool(db.url, { applicationName: "pool-test", max: 2 });
    try {
      const failed = inTransaction(pool, async (client) => {
        const { rows } = await client.query<{ pid: number }>("select pg_backend_pid() as pid");
        // 57P01, as a fast shutdown sends it, reaching a client that is checked out and between queries.
        await db.pool.query("select pg_terminate_backend($1)", [rows[0]!.pid]);
        await sleep(300);
        await client.query("select 1");
      });
      const err = await failed.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isDatabaseUnavailable(err)).toBe(true);
      const { rows } = await pool.query<{ one: number }>("select 1 as one");
      expect(rows[0]!.one).toBe(1);
      expect(pool.totalCount).toBeLessThanOrEqual(2);
    } finally {
      await pool.end();
    }
  });

  it("held outside a transaction (as a session lock holder does) crashes nothing either", async () => {
    const pool = createPool(db.url, { applicationName: "pool-test-held", max: 1 });
    try {
      const client = await pool.connect();
      await db.pool.query(
        "select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'pool-test-held'",
      );
      await sleep(300);
      const err = await client.query("select 1").then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isDatabaseUnavailable(err)).toBe(true);
      client.release();
      const { rows } = await pool.query<{ one: number }>("select 1 as one");
      expect(rows[0]!.one).toBe(1);
    } finally {
      await pool.end();
    }
  });
});
