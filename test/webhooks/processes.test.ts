/**
 * Deliveries from real api processes sharing one database: no attempt is
 * ever sent twice, and a process killed mid-attempt loses nothing (the
 * attempt is retried once its lease expires; the receiver deduplicates on
 * the event id).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeliveryWorker } from "../../api/src/webhooks/delivery-worker.js";
import { sealSecret } from "../../api/src/webhooks/endpoint-secrets.js";
import { createOrganization } from "../fixtures/organization.js";
import { createTestCa, ok, startReceiver, type Receiver, type TestCa } from "../fixtures/https-receiver.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import { startApiProcess, type ApiProcess } from "./api-process.js";

let db: TestDatabase;
let ca: TestCa;
let rx: Receiver;
const credentialKey = randomBytes(32);
const processes: ApiProcess[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  ca = createTestCa();
  rx = await startReceiver(ca);
});
afterAll(async () => {
  await Promise.all(processes.map((p) => p.kill("SIGKILL")));
  await rx.close();
  await db.drop();
  ca.dispose();
});

async function endpoint(org: string, path: string, types: string[]): Promise<string> {
  const id = randomUUID();
  await db.pool.query(
    "insert into webhook_endpoints (id, organization_id, url, event_types, secret_encrypted) values ($1, $2, $3, $4, $5)",
    [
      id,
      org,
      `${rx.url}${path}`,
      types,
      sealSecret(credentialKey, id, `whsec_${randomBytes(32).toString("base64url")}`),
    ],
  );
  return id;
}

async function until(what: string, check: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("several api processes", () => {
  it("deliver everything from one database without a duplicate attempt", async () => {
    const [a, b] = await Promise.all([
      startApiProcess({ databaseUrl: db.url, credentialKey, caFile: ca.caFile }),
      startApiProcess({ databaseUrl: db.url, credentialKey, caFile: ca.caFile }),
    ]);
    processes.push(a!, b!);
    rx.answer = (r, res) => {
      setTimeout(() => ok(r, res), 200);
    };
    const orgs = [
      await createOrganization(db.pool),
      await createOrganization(db.pool),
      await createOrganization(db.pool),
    ];
    for (const [i, org] of orgs.entries()) {
      for (let j = 0; j < 3; j++) await endpoint(org, `/p${i}-${j}`, ["action.allowed"]);
    }
    for (let n = 0; n < 4; n++)
      for (const org of orgs)
        await db.pool.query(
          "insert into events (organization_id, type, data) values ($1, 'action.allowed', $2)",
          [org, { n }],
        );
    const total = 3 * 3 * 4;
    await until("every delivery", async () => {
      const { rows } = await db.pool.query<{ n: string }>(
        "select count(*) as n from webhook_deliveries where state = 'delivered'",
      );
      return Number(rows[0]!.n) === total;
    });
    expect(rx.requests).toHaveLength(total);
    const deliveryIds = rx.requests.map((r) => r.headers["service-delivery-id"]);
    expect(new Set(deliveryIds).size).toBe(total);
    const { rows } = await db.pool.query<{ n: string; max: number }>(
      "select count(*) as n, max(number) as max from webhook_attempts",
    );
    expect(rows[0]).toEqual({ n: String(total), max: 1 });
    // What the two processes sent adds up to every delivery once. (How the work splits between
    // them depends on who polls first: one may take it all, so the split is not asserted.)
    // A process logs an attempt after recording it, so its line may still be in the pipe: wait for it
    // (a duplicate attempt would make the sum overshoot, which the assertion below still catches).
    const logged = () => [a!, b!].map((p) => (p.output().match(/"msg":"webhook attempt"/g) ?? []).length);
    await until("every attempt logged", async () => logged()[0]! + logged()[1]! >= total);
    const sentBy = logged();
    expect(sentBy[0]! + sentBy[1]!).toBe(total);
    // Their metrics count what each sent (a counter never incremented prints no line, so ask one that sent).
    const busy = sentBy[0]! > 0 ? 0 : 1;
    const metrics = await (await fetch(`${[a!, b!][busy]!.url}/metrics`)).text();
    expect(metrics).toContain(`countersign_webhook_attempts_total{outcome="success"} ${sentBy[busy]}`);
    expect(metrics).toContain("countersign_webhook_attempt_duration_seconds_count");
    expect(metrics).toContain("countersign_webhook_queue_age_seconds");
    await Promise.all([a!.kill("SIGTERM"), b!.kill("SIGTERM")]);
  }, 180_000);
});

describe("a process killed mid-delivery", () => {
  it("loses nothing: the attempt is retried after its lease and the receiver deduplicates by event id", async () => {
    // Only the process about to be killed may deliver (the earlier ones are gone even if their test failed).
    await Promise.all(processes.map((p) => p.kill("SIGKILL")));
    rx.requests.length = 0;
    const org = await createOrganization(db.pool);
    const id = await endpoint(org, "/killed", ["receipt.created"]);
    const victim = await startApiProcess({ databaseUrl: db.url, credentialKey, caFile: ca.caFile });
    processes.push(victim);
    const seen = new Set<string>();
    const processed: string[] = [];
    let hang = true;
    rx.answer = (r, res) => {
      if (hang) return; // never answers: the process is killed while it waits
      const eventId = r.headers["service-event-id"] as string;
      if (!seen.has(eventId)) {
        seen.add(eventId);
        processed.push(eventId);
      }
      ok(r, res);
    };
    await db.pool.query(
      "insert into events (organization_id, type, data) values ($1, 'receipt.created', '{}')",
      [org],
    );
    await rx.received(1);
    await victim.kill("SIGKILL");
    hang = false;

    const { rows: held } = await db.pool.query(
      "select state, lease_until from webhook_deliveries where endpoint_id = $1",
      [id],
    );
    expect(held[0].state).toBe("pending");
    expect(held[0].lease_until).not.toBeNull();

    // While the lease lasts, no other worker takes the delivery.
    await new DeliveryWorker({
      pool: db.pool,
      credentialKey,
      allowLoopbackUrls: true,
      ca: [ca.caPem],
    }).runOnce();
    expect(rx.requests).toHaveLength(1);

    // After it (a clock 31 s ahead), another worker sends it again.
    const later = () => new Date(Date.now() + 31_000);
    const takeover = new DeliveryWorker({
      pool: db.pool,
      credentialKey,
      allowLoopbackUrls: true,
      ca: [ca.caPem],
      now: later,
    });
    await takeover.runOnce();
    const metrics = await takeover.metrics.registry.metrics();
    expect(metrics).toContain('countersign_webhook_attempts_total{outcome="interrupted"} 1');
    expect(metrics).toContain('countersign_webhook_deliveries_total{outcome="delivered"} 1');
    expect(rx.requests).toHaveLength(2);
    expect(rx.requests[1]!.headers["service-event-id"]).toBe(rx.requests[0]!.headers["service-event-id"]);
    expect(rx.requests[1]!.headers["service-delivery-id"]).toBe(
      rx.requests[0]!.headers["service-delivery-id"],
    );
    expect(rx.requests[1]!.raw.equals(rx.requests[0]!.raw)).toBe(true);
    expect(processed).toHaveLength(1);

    const { rows } = await db.pool.query(
      "select a.number, a.status_code, a.error, d.state from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.endpoint_id = $1 order by a.number",
      [id],
    );
    expect(rows).toEqual([
      { number: 1, status_code: null, error: "INTERRUPTED", state: "delivered" },
      { number: 2, status_code: 200, error: null, state: "delivered" },
    ]);
  }, 180_000);
});
