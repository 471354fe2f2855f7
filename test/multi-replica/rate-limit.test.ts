/**
 * The per-key token bucket is exact under concurrency across replicas:
 * many connections on one key, spread over two Gateway processes, are
 * admitted no more than the burst plus what refilled over the time they ran
 * (SPEC 8.2: burst 120, 20 per second, shared by every replica). A bucket
 * that read its clock before waiting for the row lock credited the same time
 * to several callers and admitted about twice that.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSeed } from "../../protocol/src/evidence/index.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import { createAuthorizationWorld } from "../fixtures/authorization.js";
import { startGatewayProcess, type GatewayProcess } from "./gateway-process.js";

const BURST = 120;
const REFILL_PER_SECOND = 20;
// Concurrent callers (fetch keeps one connection per caller alive).
const CONNECTIONS = 24;
const SECONDS = 5;

let db: TestDatabase;
let gateways: GatewayProcess[];
const keyHashSecret = randomBytes(32);
const signingKey = generateSeed();

beforeAll(async () => {
  db = await createTestDatabase();
  gateways = await Promise.all(
    [0, 1].map(() => startGatewayProcess({ databaseUrl: db.url, keyHashSecret, signingKey })),
  );
}, 120_000);
afterAll(async () => {
  await Promise.all(gateways?.map((g) => g.stop()) ?? []);
  await db?.drop();
});

describe("the per-key token bucket under concurrency", () => {
  it(`${CONNECTIONS} connections on one key over two Gateway processes stay within burst + refill`, async () => {
    const world = await createAuthorizationWorld(db.pool, keyHashSecret);
    // An unknown tool is refused after the rate check without recording anything: the cheapest admitted call.
    const body = JSON.stringify({ tool: "no_such_tool" });
    const statuses = new Map<number, number>();
    // The database's clock decides refills, so the elapsed time is measured on it too.
    const clock = async () =>
      Number((await db.pool.query("select extract(epoch from clock_timestamp()) as t")).rows[0].t);
    const started = await clock();
    const stopAt = Date.now() + SECONDS * 1000;
    // Stalls of the bucket's row (as a slow commit flush would cause) queue many callers on its
    // lock at once, the moment a clock read before the lock goes wrong.
    const stalls = (async () => {
      await new Promise((r) => setTimeout(r, 500));
      while (Date.now() < stopAt - 300) {
        const c = await db.pool.connect();
        try {
          await c.query("begin");
          await c.query("select 1 from rate_limit_buckets where api_key_id = $1 for update", [world.keyId]);
          await new Promise((r) => setTimeout(r, 250));
          await c.query("commit");
        } finally {
          c.release();
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    await Promise.all([
      stalls,
      ...Array.from({ length: CONNECTIONS }, async (_, i) => {
        const url = `${gateways[i % 2]!.url}/v1/authorize`;
        // On a slow machine the run goes on (up to 30 s more) until the bucket has refused a few,
        // so that the bound below is tested on a drained bucket however fast the callers are.
        while (Date.now() < stopAt || ((statuses.get(429) ?? 0) < 10 && Date.now() < stopAt + 30_000)) {
          const res = await fetch(url, {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${world.key}` },
            body,
          });
          await res.arrayBuffer();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        }
      }),
    ]);
    const elapsed = (await clock()) - started;
    const admitted = statuses.get(400) ?? 0;
    const limited = statuses.get(429) ?? 0;
    // Every answer was either admitted (UNKNOWN_TOOL) or rate limited: nothing else happened.
    expect([...statuses.keys()].sort()).toEqual([400, 429]);
    expect(limited).toBeGreaterThan(0);
    // The bucket started full (no row yet), so at most burst + refill over the run (+1 for a token
    // refilled between the last answer and the clock read's rounding).
    expect(admitted).toBeLessThanOrEqual(BURST + Math.floor(REFILL_PER_SECOND * elapsed) + 1);
    // And it did admit what it owed: the whole burst at least.
    expect(admitted).toBeGreaterThanOrEqual(BURST);
  }, 60_000);
});
