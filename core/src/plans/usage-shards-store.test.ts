/**
 * Folding an organization's usage shard rows (usage-shards-store.ts) keeps its
 * monthly total, leaves organizations with few rows alone, and loses no count
 * that decisions make while it runs, on the far path or the exact one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type pg from "pg";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { createOrganization } from "../../../test/fixtures/organization.js";
import { foldCrowdedUsageShards, foldUsageShards } from "./usage-shards-store.js";

let db: TestDatabase;
let thisMonth: string;
let lastMonth: string;

beforeAll(async () => {
  db = await createTestDatabase();
  const { rows } = await db.pool.query(
    `select to_char(m, 'YYYY-MM-DD') as this, to_char(m - interval '1 month', 'YYYY-MM-DD') as last
       from (select date_trunc('month', now() at time zone 'utc')::date as m) x`,
  );
  thisMonth = rows[0].this;
  lastMonth = rows[0].last;
});
afterAll(async () => {
  await db?.drop();
});

/** Shard rows 1..shards of `per` decisions each, and shard 0 with `exact`. */
async function seed(org: string, month: string, shards: number, per: number, exact = 0): Promise<void> {
  await db.pool.query(
    `insert into usage_counters (organization_id, month, shard, protected_actions)
     select $1::uuid, $2::date, s::smallint, $4::bigint from generate_series(1, $3::int) s
     union all select $1::uuid, $2::date, 0, $5::bigint where $5::bigint > 0`,
    [org, month, shards, per, exact],
  );
}

async function rowsAndTotal(
  org: string,
  month: string,
): Promise<{ rows: number; total: number; exact: number }> {
  const { rows } = await db.pool.query(
    `select count(*)::int as rows, coalesce(sum(protected_actions), 0)::int as total,
            coalesce(sum(protected_actions) filter (where shard = 0), 0)::int as exact
       from usage_counters where organization_id = $1 and month = $2::date`,
    [org, month],
  );
  return rows[0];
}

describe("folding usage shards", () => {
  it("folds only organizations and months with many shard rows, keeping every total", async () => {
    const crowded = await createOrganization(db.pool, { plan: "startup" });
    const few = await createOrganization(db.pool, { plan: "startup" });
    await seed(crowded, thisMonth, 100, 3, 7);
    await seed(crowded, lastMonth, 70, 2);
    await seed(few, thisMonth, 10, 5);

    expect(await foldCrowdedUsageShards(db.pool, { above: 64 })).toEqual({ folded: 2, more: false });

    expect(await rowsAndTotal(crowded, thisMonth)).toEqual({ rows: 1, total: 307, exact: 307 });
    expect(await rowsAndTotal(crowded, lastMonth)).toEqual({ rows: 1, total: 140, exact: 140 });
    expect(await rowsAndTotal(few, thisMonth)).toEqual({ rows: 10, total: 50, exact: 0 });
    // Nothing is left above the threshold: the next pass finds nothing.
    expect(await foldCrowdedUsageShards(db.pool, { above: 64 })).toEqual({ folded: 0, more: false });
  });

  it("says more is left when a pass reaches its most, and the next pass goes on", async () => {
    const a = await createOrganization(db.pool, { plan: "startup" });
    const b = await createOrganization(db.pool, { plan: "startup" });
    await seed(a, thisMonth, 5, 1);
    await seed(b, thisMonth, 5, 1);
    const first = await foldCrowdedUsageShards(db.pool, { above: 4, most: 1 });
    expect(first).toEqual({ folded: 1, more: true });
    await foldCrowdedUsageShards(db.pool, { above: 4, most: 10 });
    expect(await rowsAndTotal(a, thisMonth)).toEqual({ rows: 1, total: 5, exact: 5 });
    expect(await rowsAndTotal(b, thisMonth)).toEqual({ rows: 1, total: 5, exact: 5 });
  });

  it("folds nothing and writes no row for an organization without shard rows", async () => {
    const org = await createOrganization(db.pool, { plan: "startup" });
    expect(await foldUsageShards(db.pool, org, thisMonth)).toBe(0);
    expect(await rowsAndTotal(org, thisMonth)).toEqual({ rows: 0, total: 0, exact: 0 });
  });
});

/** Counts `times` times `n` decisions in its own transaction on one connection; answers how many were counted. */
async function countLoop(client: pg.PoolClient, org: string, limit: number | null, n: number, times: number) {
  let counted = 0;
  for (let i = 0; i < times; i++) {
    for (;;) {
      await client.query("begin");
      try {
        const { rows } = await client.query("select count_usage_many($1, $2, $3) as c", [org, limit, n]);
        await client.query("commit");
        counted += rows[0].c as number;
        break;
      } catch (err) {
        await client.query("rollback");
        // A far-path count that found itself in the margin: counted again on the exact path, as the Gateway does.
        if ((err as { code?: string }).code !== "CSRTY") throw err;
      }
    }
  }
  return counted;
}

describe("folding while decisions are counted", () => {
  it("loses no count on the far path and never passes the limit on the exact path", async () => {
    const unlimited = await createOrganization(db.pool, { plan: "enterprise" });
    const far = await createOrganization(db.pool, { plan: "startup" });
    const near = await createOrganization(db.pool, { plan: "startup" });
    const margin = Number((await db.pool.query("select usage_margin() as m")).rows[0].m);
    // Near its limit: 60 under it, the total spread over 80 shard rows and shard 0.
    const nearLimit = margin + 1_000;
    await seed(near, thisMonth, 80, 10, nearLimit - 60 - 800);
    await seed(far, thisMonth, 80, 1);

    const clients = await Promise.all([1, 2, 3, 4].map(() => db.pool.connect()));
    let folding = true;
    let folds = 0;
    const folder = (async () => {
      while (folding) {
        await foldCrowdedUsageShards(db.pool, { above: 0 });
        folds++;
      }
    })();
    try {
      // One loop per connection at a time: each connection is its own backend, so its own shard row.
      const counted = await Promise.all(clients.map((c) => countLoop(c, unlimited, null, 3, 25)));
      const farCounted = await Promise.all(clients.map((c) => countLoop(c, far, 1_000_000_000, 2, 25)));
      const nearCounted = await Promise.all(clients.map((c) => countLoop(c, near, nearLimit, 1, 25)));
      folding = false;
      await folder;

      expect(counted).toEqual([75, 75, 75, 75]);
      expect((await rowsAndTotal(unlimited, thisMonth)).total).toBe(300);
      expect(farCounted).toEqual([50, 50, 50, 50]);
      expect((await rowsAndTotal(far, thisMonth)).total).toBe(80 + 200);
      // 100 attempts, 60 places: exactly the limit, and exactly 60 counted.
      expect(nearCounted.reduce((a, b) => a + b, 0)).toBe(60);
      expect((await rowsAndTotal(near, thisMonth)).total).toBe(nearLimit);
      expect(folds).toBeGreaterThan(0);
    } finally {
      folding = false;
      await folder;
      clients.forEach((c) => c.release());
    }
  });
});
