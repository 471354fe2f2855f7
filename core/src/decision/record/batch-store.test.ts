/**
 * The batch write (batch-store.ts) gives every decision the outcome the
 * single write (store.ts) gives it alone, and writes the rows of exactly
 * the recorded ones; the writer (batcher.ts) batches writes that
 * queue and writes a failed batch again one decision at a time.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../test/setup/database.js";
import {
  createAuthorizationWorld,
  createGatewayKey,
  type AuthorizationWorld,
} from "../../../../test/fixtures/authorization.js";
import { countingPool, ofCalls } from "../../../../test/fixtures/counting-pool.js";
import { BUCKET } from "../bucket.js";
import { recordDecision } from "./store.js";
import { claimed, claimTarget, decision } from "../../../../test/fixtures/decision-write.js";
import { MAX_BATCH, recordDecisions } from "./batch-store.js";
import { DecisionWriter } from "./batcher.js";

let db: TestDatabase;
let w: AuthorizationWorld;
let limited: AuthorizationWorld;
const keyHashSecret = randomBytes(32);

beforeAll(async () => {
  db = await createTestDatabase();
  w = await createAuthorizationWorld(db.pool, keyHashSecret);
  limited = await createAuthorizationWorld(db.pool, keyHashSecret, { plan: "developer" });
});
const pools: Array<{ end(): Promise<void> }> = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
  await db?.drop();
});

async function revision(organizationId: string): Promise<string> {
  const { rows } = await db.pool.query(
    "select revision::text from configuration_revisions where organization_id = $1",
    [organizationId],
  );
  return rows[0].revision;
}

async function newKey(world: AuthorizationWorld): Promise<string> {
  return (await createGatewayKey(db.pool, keyHashSecret, world.organizationId, world.agentId, world.ownerId))
    .id;
}

/** What is stored for an action: its row, objects, receipt (with bundle), events, approval request. */
async function stored(actionId: string) {
  const { rows } = await db.pool.query(
    `select (select count(*)::int from protected_actions where id = $1) as actions,
            (select count(*)::int from signed_objects where protected_action_id = $1) as objects,
            (select count(*)::int from receipts where protected_action_id = $1 and bundle is not null) as receipts,
            (select count(*)::int from events where data->>'protected_action_id' = $1::text) as events,
            (select count(*)::int from approval_requests where protected_action_id = $1) as approvals`,
    [actionId],
  );
  return rows[0];
}

async function usage(organizationId: string): Promise<number> {
  const { rows } = await db.pool.query(
    "select coalesce(sum(protected_actions), 0)::int as n from usage_counters where organization_id = $1",
    [organizationId],
  );
  return rows[0].n;
}

/**
 * Leaves a key's bucket holding `tokens`, and keeps it there: refilled_at an hour ahead credits no
 * refill until then (the take reads the clock as greatest(now, refilled_at)), so a slow machine
 * cannot refill 0.5 tokens (25 ms at 20/s) before the batch's write reads them.
 */
async function setTokens(apiKeyId: string, tokens: number) {
  await db.pool.query(
    `insert into rate_limit_buckets (api_key_id, tokens, refilled_at, wait) values ($1, $2, now() + interval '1 hour', 0)
     on conflict (api_key_id) do update set tokens = $2, refilled_at = now() + interval '1 hour'`,
    [apiKeyId, tokens],
  );
}

describe("the batch write", () => {
  it("gives each decision the single write's outcome and writes exactly the recorded ones", async () => {
    const [plainKey, warmKey, staleKey, shortKey, repeatKey, approvalKey] = await Promise.all(
      Array.from({ length: 6 }, () => newKey(w)),
    );
    await setTokens(shortKey!, 0.5);
    const earlier = decision(w, repeatKey!, { idempotencyKey: "seen" });
    expect(await recordDecision(db.pool, earlier)).toBe("recorded");
    const usageBefore = await usage(w.organizationId);
    // Read after the keys were made: a new key moves the revision.
    const current = await revision(w.organizationId);

    const writes = [
      decision(w, plainKey!),
      decision(w, warmKey!, { warm: current, idempotencyKey: "fresh" }),
      decision(w, staleKey!, { warm: String(BigInt(current) - 1n) }),
      decision(w, shortKey!, { warm: current }),
      decision(w, repeatKey!, { warm: current, idempotencyKey: "seen" }),
      decision(w, approvalKey!, { approval: true }),
    ];
    const outcomes = await recordDecisions(db.pool, writes);
    expect(outcomes).toEqual(["recorded", "recorded", "stale", "bucket_short", "repeat", "recorded"]);

    const full = { actions: 1, objects: 2, receipts: 1, events: 2, approvals: 0 };
    const none = { actions: 0, objects: 0, receipts: 0, events: 0, approvals: 0 };
    expect(await stored(writes[0]!.action.id)).toEqual(full);
    expect(await stored(writes[1]!.action.id)).toEqual(full);
    expect(await stored(writes[2]!.action.id)).toEqual(none);
    expect(await stored(writes[3]!.action.id)).toEqual(none);
    expect(await stored(writes[4]!.action.id)).toEqual(none);
    expect(await stored(writes[5]!.action.id)).toEqual({ ...full, approvals: 1 });
    // Each receipt holds its own bundle's bytes (the batch sends them as one parameter, sliced).
    for (const x of [writes[0]!, writes[1]!, writes[5]!]) {
      const { rows } = await db.pool.query("select bundle from receipts where protected_action_id = $1", [
        x.action.id,
      ]);
      expect(rows[0].bundle.equals(x.receipt!.bundle)).toBe(true);
    }
    // Counted: the three recorded, nothing for the others.
    expect(await usage(w.organizationId)).toBe(usageBefore + 3);
    // The warm row took its key's token; the short and stale keys kept theirs.
    const { rows } = await db.pool.query<{ api_key_id: string; tokens: number }>(
      "select api_key_id, tokens from rate_limit_buckets where api_key_id = any($1)",
      [[warmKey, shortKey, staleKey]],
    );
    const tokens = new Map(rows.map((r) => [r.api_key_id, Number(r.tokens)]));
    expect(tokens.get(warmKey!)).toBeCloseTo(BUCKET.burst - 1, 0);
    expect(tokens.get(shortKey!)).toBeLessThan(1);
    expect(tokens.has(staleKey!)).toBe(false);
  });

  it("stops a limited plan at its limit row by row, counting and recording only what fits", async () => {
    const limit = 500;
    await db.pool.query(
      `insert into usage_counters (organization_id, month, shard, protected_actions)
       values ($1, date_trunc('month', now() at time zone 'utc')::date, 0, $2)
       on conflict (organization_id, month, shard) do update set protected_actions = excluded.protected_actions`,
      [limited.organizationId, limit - 2 - (await usage(limited.organizationId))],
    );
    expect(await usage(limited.organizationId)).toBe(limit - 2);
    const keys = await Promise.all(Array.from({ length: 4 }, () => newKey(limited)));
    const writes = keys.map((k) => decision(limited, k, { monthlyLimit: limit }));
    expect(await recordDecisions(db.pool, writes)).toEqual([
      "recorded",
      "recorded",
      "plan_limit",
      "plan_limit",
    ]);
    expect(await usage(limited.organizationId)).toBe(limit);
    expect((await stored(writes[2]!.action.id)).actions).toBe(0);
  });

  it("fails whole when two writes race for one idempotency key, writing nothing", async () => {
    const [a, b] = await Promise.all([newKey(w), newKey(w)]);
    const writes = [
      decision(w, a!, { idempotencyKey: "twice" }),
      decision(w, b!, { idempotencyKey: "twice" }),
    ];
    const before = await usage(w.organizationId);
    await expect(recordDecisions(db.pool, writes)).rejects.toMatchObject({ code: "23505" });
    expect(await usage(w.organizationId)).toBe(before);
    expect((await stored(writes[0]!.action.id)).actions).toBe(0);
  });

  it("counts a batch far from the limit at once in its connection's shard, though it ends inside the margin", async () => {
    const growth = await createAuthorizationWorld(db.pool, keyHashSecret, { plan: "growth" });
    const limit = 250_000;
    const margin = Number((await db.pool.query("select usage_margin() as m")).rows[0].m);
    await db.pool.query(
      `insert into usage_counters (organization_id, month, shard, protected_actions)
       values ($1, date_trunc('month', now() at time zone 'utc')::date, 3, $2)`,
      [growth.organizationId, limit - margin - 2],
    );
    const keys = await Promise.all(Array.from({ length: 5 }, () => newKey(growth)));
    const writes = keys.map((k) => decision(growth, k, { monthlyLimit: limit }));
    expect(await recordDecisions(db.pool, writes)).toEqual(Array(5).fill("recorded"));
    expect(await usage(growth.organizationId)).toBe(limit - margin + 3);
    // One far-path count of five (the margin allows a transaction that many in flight): nothing on
    // the exact path (shard 0).
    const exact = async () =>
      (
        await db.pool.query(
          "select coalesce(sum(protected_actions), 0)::int as n from usage_counters where organization_id = $1 and shard = 0",
          [growth.organizationId],
        )
      ).rows[0].n;
    expect(await exact()).toBe(0);
    // The next batch starts inside the margin: counted one by one on the exact path, all of them.
    const more = await Promise.all(Array.from({ length: 3 }, () => newKey(growth)));
    const next = more.map((k) => decision(growth, k, { monthlyLimit: limit }));
    expect(await recordDecisions(db.pool, next)).toEqual(Array(3).fill("recorded"));
    expect(await usage(growth.organizationId)).toBe(limit - margin + 6);
    expect(await exact()).toBe(3);
  });

  it("counts each organization of a batch once, the first rows first when only some fit", async () => {
    const a = await createAuthorizationWorld(db.pool, keyHashSecret, { plan: "developer" });
    const b = await createAuthorizationWorld(db.pool, keyHashSecret, { plan: "developer" });
    const margin = Number((await db.pool.query("select usage_margin() as m")).rows[0].m);
    const limit = margin + 1_000;
    // a one short of its limit (the exact path), b far from it (its connection's shard).
    await db.pool.query(
      `insert into usage_counters (organization_id, month, shard, protected_actions)
       values ($1, date_trunc('month', now() at time zone 'utc')::date, 3, $2)`,
      [a.organizationId, limit - 1],
    );
    const writes = [
      ...(await Promise.all(Array.from({ length: 3 }, () => newKey(a)))).map((k) =>
        decision(a, k, { monthlyLimit: limit }),
      ),
      ...(await Promise.all(Array.from({ length: 3 }, () => newKey(b)))).map((k) =>
        decision(b, k, { monthlyLimit: limit }),
      ),
    ];
    // Sorted by organization as the batcher sends them.
    writes.sort((x, y) => x.action.organizationId.localeCompare(y.action.organizationId));
    const outcomes = await recordDecisions(db.pool, writes);
    const of = (org: string) => outcomes.filter((_, i) => writes[i]!.action.organizationId === org);
    expect(of(a.organizationId)).toEqual(["recorded", "plan_limit", "plan_limit"]);
    expect(of(b.organizationId)).toEqual(["recorded", "recorded", "recorded"]);
    expect(await usage(a.organizationId)).toBe(limit);
    expect(await usage(b.organizationId)).toBe(3);
    // The one of a that fits is the first of its rows.
    expect(
      (await stored(writes.find((w) => w.action.organizationId === a.organizationId)!.action.id)).actions,
    ).toBe(1);
  });

  it("claims calls with their decisions row by row: only those whose re-checks hold are recorded, executing", async () => {
    const target = await claimTarget(db.pool, w);
    const keys = await Promise.all(Array.from({ length: 4 }, () => newKey(w)));
    const current = await revision(w.organizationId);
    const moved = { ...(target.binding as object), url: "http://127.0.0.1:10/mcp" };
    const writes = [
      claimed(decision(w, keys[0]!), target),
      claimed(decision(w, keys[1]!), target, moved),
      claimed(decision(w, keys[2]!, { warm: current }), target),
      claimed(decision(w, keys[3]!, { warm: current }), target, moved),
    ];
    expect(await recordDecisions(db.pool, writes)).toEqual([
      "recorded",
      "claim_refused",
      "recorded",
      "stale",
    ]);
    const status = async (id: string) =>
      (await db.pool.query("select status, execution_object_id from protected_actions where id = $1", [id]))
        .rows[0];
    expect(await status(writes[0]!.action.id)).toEqual({
      status: "executing",
      execution_object_id: writes[0]!.claim.executionObjectId,
    });
    expect(await status(writes[1]!.action.id)).toBeUndefined();
    expect((await status(writes[2]!.action.id))?.status).toBe("executing");
    expect(await status(writes[3]!.action.id)).toBeUndefined();
  });

  it("allows as many far-path counts per transaction as the migration's margin assumes", async () => {
    const { rows } = await db.pool.query("select usage_counts_per_transaction() as n");
    expect(rows[0].n).toBe(MAX_BATCH);
  });
});

describe("the decision writer", () => {
  it("writes a lone decision with the single statement", async () => {
    const { pool, sent } = countingPool(db.url);
    pools.push(pool);
    const writer = new DecisionWriter(pool);
    const write = decision(w, await newKey(w));
    expect(await writer.record(write)).toBe("recorded");
    expect(ofCalls(sent).map((c) => c.name)).toEqual(["decision_write"]);
  });

  it("batches writes that queue, and answers each with its own outcome", async () => {
    const { pool, sent } = countingPool(db.url);
    pools.push(pool);
    const writer = new DecisionWriter(pool, { inFlight: 1 });
    const keys = await Promise.all(Array.from({ length: 12 }, () => newKey(w)));
    const writes = keys.map((k) => decision(w, k));
    const outcomes = await Promise.all(writes.map((x) => writer.record(x)));
    expect(outcomes).toEqual(Array(12).fill("recorded"));
    const names = ofCalls(sent).map((c) => c.name);
    // The first goes alone at once; the eleven that queued behind it go together.
    expect(names).toEqual(["decision_write", "decision_write_batch"]);
    for (const x of writes) expect((await stored(x.action.id)).actions).toBe(1);
  });

  it("keeps one key's writes in separate batches (its bucket is taken once per statement)", async () => {
    const { pool, sent } = countingPool(db.url);
    pools.push(pool);
    const writer = new DecisionWriter(pool, { inFlight: 1 });
    const key = await newKey(w);
    const current = await revision(w.organizationId);
    const writes = Array.from({ length: 3 }, () => decision(w, key, { warm: current }));
    expect(await Promise.all(writes.map((x) => writer.record(x)))).toEqual(Array(3).fill("recorded"));
    expect(ofCalls(sent).map((c) => c.name)).toEqual([
      "decision_write_warm",
      "decision_write_warm",
      "decision_write_warm",
    ]);
  });

  it("writes a failed batch again one at a time: one decision recorded, its racer told of the conflict", async () => {
    const { pool, sent } = countingPool(db.url);
    pools.push(pool);
    const writer = new DecisionWriter(pool, { inFlight: 1 });
    const keys = await Promise.all(Array.from({ length: 4 }, () => newKey(w)));
    const first = decision(w, keys[0]!);
    const racers = [
      decision(w, keys[1]!, { idempotencyKey: "race" }),
      decision(w, keys[2]!, { idempotencyKey: "other" }),
    ];
    // Another writer holds "race" already, as another replica would.
    const elsewhere = decision(w, keys[3]!, { idempotencyKey: "race" });
    expect(await recordDecision(db.pool, elsewhere)).toBe("recorded");
    const outcomes = await Promise.all([first, ...racers].map((x) => writer.record(x)));
    expect(outcomes).toEqual(["recorded", "idempotency_conflict", "recorded"]);
    expect(ofCalls(sent).map((c) => c.name)).toEqual([
      "decision_write",
      "decision_write_batch",
      "decision_write",
      "decision_write",
    ]);
    expect((await stored(racers[0]!.action.id)).actions).toBe(0);
    expect((await stored(racers[1]!.action.id)).actions).toBe(1);
  });
});
