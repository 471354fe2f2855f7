import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { createPool, inTransaction, isDatabaseUnavailable } from "./index.js";
import { TRANSACTION_ATTEMPTS } from "./pool.js";

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

describe("a write that reaches a standby", () => {
  it("is 'database unavailable' (SQLSTATE 25006: the address reached a server that is not the primary)", async () => {
    // A hot standby refuses writes as a read-only transaction does, with the same SQLSTATE.
    const err = await inTransaction(db.pool, async (client) => {
      await client.query("set transaction read only");
      await client.query("create table never_made (id int)");
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as { code?: string }).code).toBe("25006");
    expect(isDatabaseUnavailable(err)).toBe(true);
    const { rows } = await db.pool.query("select to_regclass('never_made') as t");
    expect(rows[0].t).toBeNull();
  });
});

describe("a transaction that meets a deadlock or serialization failure", () => {
  it("is run again from the start, so both of two deadlocked transactions commit", async () => {
    const pool = createPool(db.url, { applicationName: "pool-test-deadlock", max: 4 });
    try {
      await pool.query("create table deadlock_rows (id int primary key, n int not null)");
      await pool.query("insert into deadlock_rows values (1, 0), (2, 0)");
      // Each locks one row, waits until the other holds its row, then wants the other's:
      // PostgreSQL aborts one of them with 40P01, which must be retried, not thrown.
      let holding = 0;
      const bothHold = async () => {
        holding++;
        while (holding < 2) await sleep(10);
      };
      const attempts = { a: 0, b: 0 };
      const cross = (first: number, second: number, who: "a" | "b") =>
        inTransaction(pool, async (client) => {
          attempts[who]++;
          await client.query("update deadlock_rows set n = n + 1 where id = $1", [first]);
          if (attempts[who] === 1) await bothHold();
          await client.query("update deadlock_rows set n = n + 1 where id = $1", [second]);
        });
      await Promise.all([cross(1, 2, "a"), cross(2, 1, "b")]);
      expect(attempts.a + attempts.b).toBe(3);
      const { rows } = await pool.query<{ n: number }>("select n from deadlock_rows order by id");
      expect(rows.map((r) => r.n)).toEqual([2, 2]);
    } finally {
      await pool.end();
    }
  });

  it("gives up after TRANSACTION_ATTEMPTS, and any other error is thrown at once", async () => {
    const pool = createPool(db.url, { applicationName: "pool-test-retry", max: 1 });
    try {
      let runs = 0;
      const always = await inTransaction(pool, async () => {
        runs++;
        throw Object.assign(new Error("could not serialize access"), { code: "40001" });
      }).catch((e: unknown) => e);
      expect((always as { code?: string }).code).toBe("40001");
      expect(runs).toBe(TRANSACTION_ATTEMPTS);

      runs = 0;
      const other = await inTransaction(pool, async (client) => {
        runs++;
        await client.query("select 1 / 0");
      }).catch((e: unknown) => e);
      expect((other as { code?: string }).code).toBe("22012");
      expect(runs).toBe(1);
    } finally {
      await pool.end();
    }
  });
});
