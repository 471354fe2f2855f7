/**
 * A limited plan's monthly count is exact at the boundary with no single row
 * every decision queues on (count_usage, migration 0014): calls racing at two
 * Gateway processes are never counted past the limit, and none is refused
 * while the organization is under it, whether the count runs far from the
 * limit (spread over shards), crosses into the margin, or sits at the limit.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSeed } from "../../protocol/src/evidence/index.js";
import { quotas } from "../../core/src/plans/index.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import {
  createAuthorizationWorld,
  createGatewayKey,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { authorizeAt, startGatewayProcess, type GatewayProcess } from "./gateway-process.js";

// A plan whose limit lies beyond the margin, so the count can cross from the shards into it.
const LIMIT = quotas.growth.protectedActionsPerMonth!;
const MONTH = "date_trunc('month', now() at time zone 'utc')::date";

let db: TestDatabase;
let gateways: GatewayProcess[];
let world: AuthorizationWorld;
let margin: number;
const keyHashSecret = randomBytes(32);
const signingKey = generateSeed();

beforeAll(async () => {
  db = await createTestDatabase();
  gateways = await Promise.all(
    [0, 1].map(() => startGatewayProcess({ databaseUrl: db.url, keyHashSecret, signingKey })),
  );
  world = await createAuthorizationWorld(db.pool, keyHashSecret, { plan: "growth" });
  const { rows } = await db.pool.query("select usage_margin()::int as margin");
  margin = rows[0].margin;
}, 120_000);
afterAll(async () => {
  await Promise.all(gateways?.map((g) => g.stop()) ?? []);
  await db?.drop();
});

/** Sets the organization's count for this month, spread over a few shards as the far path leaves it. */
async function setUsage(total: number) {
  await db.pool.query("delete from usage_counters where organization_id = $1", [world.organizationId]);
  const parts = [Math.floor(total / 2), Math.ceil(total / 2)];
  for (const [i, n] of parts.entries()) {
    await db.pool.query(
      `insert into usage_counters (organization_id, month, shard, protected_actions) values ($1, ${MONTH}, $2, $3)`,
      [world.organizationId, i * 7, n],
    );
  }
}

async function usage(): Promise<number> {
  const { rows } = await db.pool.query(
    `select coalesce(sum(protected_actions), 0)::int as n from usage_counters where organization_id = $1 and month = ${MONTH}`,
    [world.organizationId],
  );
  return rows[0].n;
}

/**
 * `n` different calls at once, alternating between the two processes, on five fresh keys: a
 * process writes the decisions of different keys that queue in one batch (core/src/decision/record/batcher.ts),
 * so one transaction holds several counts of the organization.
 */
async function race(n: number, tag: string) {
  const keys = await Promise.all(
    Array.from(
      { length: 5 },
      async () =>
        (await createGatewayKey(db.pool, keyHashSecret, world.organizationId, world.agentId, world.ownerId))
          .key,
    ),
  );
  return Promise.all(
    Array.from({ length: n }, (_, i) =>
      authorizeAt(gateways[i % 2]!.url, keys[i % 5]!, {
        tool: world.tool,
        arguments: { amount: 5 },
        idempotency_key: `${tag}-${i}`,
      }),
    ),
  );
}

describe("a limited plan's monthly count under racing Gateway processes", () => {
  it("crossing from the shards into the margin: every call under the limit is counted", async () => {
    // A few calls below the margin, the rest inside it.
    const start = LIMIT - margin - 5;
    expect(start).toBeGreaterThan(0);
    await setUsage(start);
    const answers = await race(30, "cross");
    expect(answers.map((a) => a.body.status)).toEqual(Array(30).fill("authorized"));
    expect(await usage()).toBe(start + 30);
  });

  it("at the limit: exactly the calls that fit are counted, the rest refused with nothing recorded", async () => {
    await setUsage(LIMIT - 7);
    const before = (
      await db.pool.query("select count(*)::int as n from protected_actions where organization_id = $1", [
        world.organizationId,
      ])
    ).rows[0].n;
    const answers = await race(30, "edge");
    const authorized = answers.filter((a) => a.status === 200 && a.body.status === "authorized");
    const refused = answers.filter((a) => a.body.code === "PLAN_LIMIT_EXCEEDED");
    expect(authorized).toHaveLength(7);
    expect(refused).toHaveLength(23);
    expect(await usage()).toBe(LIMIT);
    const after = (
      await db.pool.query("select count(*)::int as n from protected_actions where organization_id = $1", [
        world.organizationId,
      ])
    ).rows[0].n;
    expect(after - before).toBe(7);
  });
});
