import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { newRowId } from "./row-id.js";

const version7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** The Unix time in milliseconds a version 7 id starts with. */
const millisOf = (id: string) => parseInt(id.replace(/-/g, "").slice(0, 12), 16);

describe("time-ordered row ids", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  test("newRowId mints distinct version 7 UUIDs that carry the time and never go back", () => {
    const before = Date.now();
    const ids = Array.from({ length: 10_000 }, () => newRowId());
    const after = Date.now();
    for (const id of ids) expect(id).toMatch(version7);
    expect(new Set(ids).size).toBe(ids.length);
    const millis = ids.map(millisOf);
    expect([...millis].sort((a, b) => a - b)).toEqual(millis);
    expect(millis[0]).toBeGreaterThanOrEqual(before);
    expect(millis[millis.length - 1]).toBeLessThanOrEqual(after);
  });

  test("uuid_v7() mints version 7 UUIDs with the database's time, later ones sorting after earlier ones", async () => {
    const clock = async () =>
      Number(
        (
          await db.pool.query<{ ms: string }>(
            "select floor(extract(epoch from clock_timestamp()) * 1000)::bigint::text as ms",
          )
        ).rows[0]!.ms,
      );
    const before = await clock();
    const { rows } = await db.pool.query<{ id: string }>(
      "select uuid_v7()::text as id from generate_series(1, 1000)",
    );
    const after = await clock();
    for (const r of rows) {
      expect(r.id).toMatch(version7);
      expect(millisOf(r.id)).toBeGreaterThanOrEqual(before);
      expect(millisOf(r.id)).toBeLessThanOrEqual(after);
    }
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    const first = (await db.pool.query<{ id: string }>("select uuid_v7()::text as id")).rows[0]!.id;
    await db.pool.query("select pg_sleep(0.005)");
    const later = (await db.pool.query<{ id: string }>("select uuid_v7()::text as id")).rows[0]!.id;
    expect(later > first).toBe(true);
  });

  test("events and webhook deliveries get uuid_v7() ids by default", async () => {
    const { rows } = await db.pool.query<{ name: string; def: string }>(
      `select c.table_name || '.' || c.column_name as name, c.column_default as def
         from information_schema.columns c
        where c.table_schema = current_schema() and c.column_name = 'id'
          and c.table_name in ('events', 'webhook_deliveries')
        order by 1`,
    );
    expect(rows).toEqual([
      { name: "events.id", def: "uuid_v7()" },
      { name: "webhook_deliveries.id", def: "uuid_v7()" },
    ]);
  });
});
