import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { createPool, loadMigrations, migrate } from "./index.js";

describe("migrations", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase({ migrate: false });
  });
  afterAll(() => db.drop());

  test("two processes starting at once apply each migration exactly once", async () => {
    // Separate pools stand for separate processes: separate connections contend for the lock.
    const pools = [0, 1, 2].map(() => createPool(db.url, { applicationName: "migrate-test", max: 2 }));
    const results = await Promise.all(pools.map((p) => migrate(p)));
    await Promise.all(pools.map((p) => p.end()));
    const all = loadMigrations().map((m) => m.version);
    expect(results.flatMap((r) => r.applied).sort((a, b) => a - b)).toEqual(all);
    const { rows } = await db.pool.query("select version from schema_migrations order by version");
    expect(rows.map((r) => r.version)).toEqual(all);
  });

  test("running again applies nothing and changes nothing", async () => {
    const before = await db.pool.query("select version, applied_at from schema_migrations order by version");
    expect((await migrate(db.pool)).applied).toEqual([]);
    const after = await db.pool.query("select version, applied_at from schema_migrations order by version");
    expect(after.rows).toEqual(before.rows);
  });

  test("a migration edited after it was applied is refused", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "mig-"));
    writeFileSync(path.join(dir, "0001_organizations_and_people.sql"), "select 1;");
    await expect(migrate(db.pool, dir)).rejects.toThrow(/was changed after it was applied/);
  });

  test("a failing migration is rolled back whole and not recorded", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "mig-"));
    for (const m of loadMigrations())
      writeFileSync(path.join(dir, `${String(m.version).padStart(4, "0")}_${m.name}.sql`), m.sql);
    writeFileSync(
      path.join(dir, "9999_broken.sql"),
      "create table half_done (id int); select * from no_such_table;",
    );
    await expect(migrate(db.pool, dir)).rejects.toThrow(/9999_broken failed/);
    const { rows } = await db.pool.query(
      "select to_regclass('half_done') as t, (select count(*) from schema_migrations where version = 9999)::int as n",
    );
    expect(rows[0]).toEqual({ t: null, n: 0 });
  });
});
