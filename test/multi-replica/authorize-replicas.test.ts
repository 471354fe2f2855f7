/**
 * Several Gateway replicas on one database give the answers of one (DESIGN
 * "The shape"; SPEC 4.1, 3.2): the same request with the same idempotency
 * key fired at two processes many times at once records exactly one action,
 * one receipt and one count; a person's decision taken while a wait is held
 * by one process wakes it, whoever recorded the decision; the per-key token
 * bucket holds across replicas.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decideApproval } from "../../core/src/approvals/index.js";
import { generateSeed } from "../../protocol/src/evidence/index.js";
import { registerGatewayIdentity } from "../../core/src/identities/index.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import {
  createAuthorizationWorld,
  signDecision,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { recorded } from "../gateway/harness.js";
import { authorizeAt, startGatewayProcess, type GatewayProcess } from "./gateway-process.js";

let db: TestDatabase;
let a: GatewayProcess;
let b: GatewayProcess;
let world: AuthorizationWorld;
const keyHashSecret = randomBytes(32);
const signingKey = generateSeed();

beforeAll(async () => {
  db = await createTestDatabase();
  [a, b] = await Promise.all([
    startGatewayProcess({ databaseUrl: db.url, keyHashSecret, signingKey }),
    startGatewayProcess({ databaseUrl: db.url, keyHashSecret, signingKey }),
  ]);
  world = await createAuthorizationWorld(db.pool, keyHashSecret);
}, 120_000);
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await db?.drop();
});

describe("two Gateway processes, one database", () => {
  it("both adopted one Gateway identity and report themselves", async () => {
    const { rows } = await db.pool.query("select count(*)::int as n from identities where kind = 'gateway'");
    expect(rows[0].n).toBe(1);
    const instances = await db.pool.query("select language_revisions from gateway_instances");
    expect(instances.rows).toHaveLength(2);
    expect(instances.rows.every((r) => r.language_revisions.includes(2))).toBe(true);
  });

  it("the same request with the same key at both, many times at once: one action, one receipt, one count", async () => {
    const body = {
      tool: world.tool,
      arguments: { order: "race", amount: 25 },
      idempotency_key: `race-${Date.now()}`,
    };
    const before = await recorded(db.pool, world.organizationId);
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) => authorizeAt(i % 2 ? a.url : b.url, world.key, body)),
    );
    expect(answers.every((x) => x.status === 200 && x.body.status === "authorized")).toBe(true);
    expect(new Set(answers.map((x) => x.body.protected_action_id)).size).toBe(1);
    expect(new Set(answers.map((x) => x.body.receipt_id)).size).toBe(1);
    const after = await recorded(db.pool, world.organizationId);
    expect(after.actions - before.actions).toBe(1);
    expect(after.receipts - before.receipts).toBe(1);
    expect(after.usage - before.usage).toBe(1);
  });

  it("a decision recorded elsewhere wakes a wait held by another process", async () => {
    const body = {
      tool: world.tool,
      arguments: { order: "wake", amount: 500 },
      idempotency_key: `wake-${Date.now()}`,
    };
    const pending = await authorizeAt(a.url, world.key, body);
    expect(pending.body.status).toBe("approval_pending");
    const heldAtA = authorizeAt(a.url, world.key, { ...body, wait_seconds: 60 });
    const heldAtB = authorizeAt(b.url, world.key, { ...body, wait_seconds: 60 });
    let settled = 0;
    void heldAtA.then(() => settled++);
    void heldAtB.then(() => settled++);
    // Both replicas hold the call (their wait gauges say so) before anyone decides.
    await Promise.all([waitForGauge(a.url, 1), waitForGauge(b.url, 1)]);
    expect(settled).toBe(0);
    // The decision is recorded by this test process (as the Cloud API would), not by either Gateway.
    const identity = await registerGatewayIdentity(db.pool, signingKey);
    const object = await signDecision(
      db.pool,
      pending.body.approval_request_id,
      world.approver.signer,
      "APPROVAL",
    );
    await decideApproval(db.pool, {
      organizationId: world.organizationId,
      approvalRequestId: pending.body.approval_request_id,
      userId: world.approver.userId,
      object,
      identity,
    });
    const [atA, atB] = await Promise.all([heldAtA, heldAtB]);
    expect(atA.body).toMatchObject({
      allowed: true,
      status: "authorized",
      protected_action_id: pending.body.protected_action_id,
    });
    expect(atB.body.receipt_id).toBe(atA.body.receipt_id);
    const { rows } = await db.pool.query(
      "select count(*)::int as n from receipts where protected_action_id = $1",
      [pending.body.protected_action_id],
    );
    expect(rows[0].n).toBe(1);
  });

  it("the per-key token bucket is one bucket for all replicas", async () => {
    const w = await createAuthorizationWorld(db.pool, keyHashSecret);
    // The bucket holds 10 tokens; 60 calls spread over both replicas.
    await db.pool.query(
      "insert into rate_limit_buckets (api_key_id, tokens, refilled_at) values ($1, 10, clock_timestamp())",
      [w.keyId],
    );
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        authorizeAt(i % 2 ? a.url : b.url, w.key, { tool: "no_such_tool" }),
      ),
    );
    const seconds = (Date.now() - started) / 1000;
    const admitted = answers.filter((x) => x.status === 400).length;
    // Admitted: the 10 tokens plus what refilled (20 per second) while the calls ran; a bucket per replica would admit all 60.
    expect(admitted).toBeLessThanOrEqual(10 + Math.ceil(20 * seconds));
    expect(answers.filter((x) => x.status === 429).length).toBe(60 - admitted);
  });
});

async function waitForGauge(url: string, value: number) {
  for (;;) {
    const text = await (await fetch(`${url}/metrics`)).text();
    if (Number(text.match(/^countersign_approval_waits (\d+)/m)?.[1]) === value) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}
