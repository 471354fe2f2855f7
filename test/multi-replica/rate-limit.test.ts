/**
 * The per-key token bucket is exact under concurrency across replicas:
 * many connections on one key, spread over two Gateway processes, are
 * admitted no more than the burst plus what refilled over the time they ran
 * (SPEC 8.2: burst 120, 20 per second, shared by every replica). A bucket
 * that read its clock before waiting for the row lock credited the same time
 * to several callers and admitted about twice that. Both ways a bucket is
 * taken are run: by the admission read (a call refused after the rate check,
 * never decided warm) and by the decision's write (an allowed call that each
 * process decides from its warm admissions once it has read them,
 * core/src/decision/warm-admission.ts).
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSeed } from "../../protocol/src/evidence/index.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import { createAuthorizationWorld, type AuthorizationWorld } from "../fixtures/authorization.js";
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

const cases = [
  // An unknown tool is refused after the rate check without recording anything: the cheapest admitted call.
  { taken: "by the admission read", admittedStatus: 400, body: () => ({ tool: "no_such_tool" }) },
  {
    taken: "by the warm decision's write",
    admittedStatus: 200,
    body: (w: AuthorizationWorld) => ({ tool: w.tool, arguments: { amount: 5 } }),
  },
];

describe.each(cases)(
  "the per-key token bucket under concurrency, taken $taken",
  ({ admittedStatus, body: bodyOf }) => {
    it(`${CONNECTIONS} connections on one key over two Gateway processes stay within burst + refill`, async () => {
      const world = await createAuthorizationWorld(db.pool, keyHashSecret);
      const body = JSON.stringify(bodyOf(world));
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
      const admitted = statuses.get(admittedStatus) ?? 0;
      const limited = statuses.get(429) ?? 0;
      // Every answer was either admitted (UNKNOWN_TOOL, or authorized) or rate limited: nothing else happened.
      expect([...statuses.keys()].sort()).toEqual([admittedStatus, 429]);
      expect(limited).toBeGreaterThan(0);
      // The bucket started full (no row yet), so at most burst + refill over the run (+1 for a token
      // refilled between the last answer and the clock read's rounding).
      expect(admitted).toBeLessThanOrEqual(BURST + Math.floor(REFILL_PER_SECOND * elapsed) + 1);
      // And it did admit what it owed: the whole burst at least.
      expect(admitted).toBeGreaterThanOrEqual(BURST);
      const admissions = async (kind: string) => {
        let n = 0;
        for (const g of gateways) {
          const text = await (await fetch(`${g.url}/metrics`)).text();
          n += Number(
            text.match(
              new RegExp(`^countersign_gateway_admissions_total\\{admission="${kind}"\\} (\\d+)`, "m"),
            )?.[1] ?? 0,
          );
        }
        return n;
      };
      if (admittedStatus === 200) {
        // Decided warm, with the refusals found by the write: this case ran the path it names.
        expect(await admissions("warm")).toBeGreaterThan(admitted / 2);
        expect(await admissions("stale")).toBeGreaterThan(0);
        // Each authorized answer is one recorded action, and nothing else was recorded.
        const { rows } = await db.pool.query(
          "select count(*)::int as n from protected_actions where api_key_id = $1",
          [world.keyId],
        );
        expect(rows[0].n).toBe(admitted);
      }
    }, 60_000);
  },
);
