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

  test("count_usage_many counts an unlimited plan in this connection's shard; count_shard still does", async () => {
    const org = (
      await db.pool.query<{ id: string }>(
        `insert into organizations (name, slug) values ('shard test', 'shard-test') returning id`,
      )
    ).rows[0]!.id;
    const client = await db.pool.connect();
    try {
      const first = await client.query<{ n: number }>("select count_usage_many($1, null, 3) as n", [org]);
      // count_shard stays for Gateway processes of the previous version during an upgrade (0031).
      const second = await client.query<{ n: number }>("select count_shard($1, 2) as n", [org]);
      expect([first.rows[0]!.n, second.rows[0]!.n]).toEqual([3, 2]);
      const { rows } = await client.query<{ shards: number; total: number }>(
        `select count(*)::int as shards, sum(protected_actions)::int as total
           from usage_counters where organization_id = $1 and shard = 1 + pg_backend_pid() % 32000`,
        [org],
      );
      expect(rows[0]).toEqual({ shards: 1, total: 5 });
      const all = await client.query<{ rows: number }>(
        "select count(*)::int as rows from usage_counters where organization_id = $1",
        [org],
      );
      expect(all.rows[0]!.rows).toBe(1);
    } finally {
      client.release();
    }
  });

  // Nothing calls count_usage or count_shard any more but Gateway processes of an earlier
  // version, which a rolling upgrade runs beside the migrated database: they must keep working.
  test("count_usage still counts one decision, as count_usage_many does", async () => {
    const org = (
      await db.pool.query<{ id: string }>(
        `insert into organizations (name, slug) values ('count test', 'count-test') returning id`,
      )
    ).rows[0]!.id;
    const margin = Number((await db.pool.query("select usage_margin() as m")).rows[0].m);
    const limit = margin + 2;
    await db.pool.query(
      `insert into usage_counters (organization_id, month, shard, protected_actions)
       values ($1, date_trunc('month', now() at time zone 'utc')::date, 0, $2)`,
      [org, margin],
    );
    const answers: boolean[] = [];
    for (let i = 0; i < 3; i++)
      answers.push((await db.pool.query("select count_usage($1, $2) as ok", [org, limit])).rows[0].ok);
    expect(answers).toEqual([true, true, false]);
    const { rows } = await db.pool.query(
      "select sum(protected_actions)::bigint::text as total from usage_counters where organization_id = $1",
      [org],
    );
    expect(rows[0].total).toBe(String(limit));
  });
});
