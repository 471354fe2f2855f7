import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";

describe("the schema's functions", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  // A SQL-language function that writes is never inlined, and PostgreSQL 15
  // plans its body again at every call (0028: 0.11 ms per decision for one
  // upsert). Writes belong in plpgsql, whose plans a connection keeps.
  test("no SQL-language function writes", async () => {
    const { rows } = await db.pool.query<{ name: string }>(
      `select p.proname as name
         from pg_proc p
         join pg_namespace n on n.oid = p.pronamespace
         join pg_language l on l.oid = p.prolang
        where n.nspname = current_schema() and l.lanname = 'sql'
          and p.prosrc ~* '\\m(insert|update|delete|merge)\\M'
        order by 1`,
    );
    expect(rows.map((r) => r.name)).toEqual([]);
  });

  test("count_shard adds to this connection's shard and returns the count", async () => {
    const org = (
      await db.pool.query<{ id: string }>(
        `insert into organizations (name, slug) values ('shard test', 'shard-test') returning id`,
      )
    ).rows[0]!.id;
    const client = await db.pool.connect();
    try {
      const first = await client.query<{ n: number }>("select count_shard($1, 3) as n", [org]);
      const second = await client.query<{ n: number }>("select count_shard($1, 2) as n", [org]);
      expect([first.rows[0]!.n, second.rows[0]!.n]).toEqual([3, 2]);
      const { rows } = await client.query<{ shards: number; total: number }>(
        `select count(*)::int as shards, sum(protected_actions)::int as total
           from usage_counters where organization_id = $1 and shard = 1 + pg_backend_pid() % 32000`,
        [org],
      );
      expect(rows[0]).toEqual({ shards: 1, total: 5 });
    } finally {
      client.release();
    }
  });
});
