/**
 * Every api process folds crowded usage shard rows in the background
 * (usage-fold.ts, core/src/plans/usage-shards-store.ts): the count of an
 * organization whose decisions went through many connections ends in one row
 * with the same total, without anyone asking.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { createOrganization } from "../../../test/fixtures/organization.js";
import { FOLD_ABOVE_SHARDS } from "@countersign/core/plans";
import { startUsageFold } from "./usage-fold.js";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

it("folds an organization's crowded shard rows into one, keeping the total", async () => {
  const org = await createOrganization(db.pool, { plan: "startup" });
  const shards = FOLD_ABOVE_SHARDS + 6;
  await db.pool.query(
    `insert into usage_counters (organization_id, month, shard, protected_actions)
     select $1::uuid, date_trunc('month', now() at time zone 'utc')::date, s::smallint, 2 from generate_series(1, $2::int) s`,
    [org, shards],
  );
  const failures: string[] = [];
  const fold = startUsageFold(db.pool, (msg) => failures.push(msg), 20);
  try {
    let state = { rows: shards, total: 0 };
    for (let i = 0; i < 500 && state.rows > 1; i++) {
      await new Promise((r) => setTimeout(r, 20));
      const { rows } = await db.pool.query(
        "select count(*)::int as rows, sum(protected_actions)::int as total from usage_counters where organization_id = $1",
        [org],
      );
      state = rows[0];
    }
    expect(state).toEqual({ rows: 1, total: shards * 2 });
    expect(failures).toEqual([]);
  } finally {
    await fold.stop();
  }
});
