/**
 * A decision taken by a real Gateway writes its events in its one-statement
 * record; the events trigger creates the deliveries in that same
 * transaction, and the worker delivers them: `receipt.created` with exactly
 * the members of SPEC 6.2, checked with the client's verifyWebhook.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeliveryWorker } from "../../api/src/webhooks/delivery-worker.js";
import { sealSecret } from "../../api/src/webhooks/endpoint-secrets.js";
import { verifyWebhook } from "../../clients/typescript/src/index.js";
import { createAuthorizationWorld, type AuthorizationWorld } from "../fixtures/authorization.js";
import { createTestCa, startReceiver, type Receiver, type TestCa } from "../fixtures/https-receiver.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import { startTestGateway, type TestGateway } from "../gateway/harness.js";

let db: TestDatabase;
let gw: TestGateway;
let world: AuthorizationWorld;
let ca: TestCa;
let rx: Receiver;
const credentialKey = randomBytes(32);

beforeAll(async () => {
  db = await createTestDatabase();
  gw = await startTestGateway(db);
  world = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
  ca = createTestCa();
  rx = await startReceiver(ca);
});
afterAll(async () => {
  await rx?.close();
  await gw?.close();
  await db?.drop();
  ca?.dispose();
});

describe("events of a Gateway decision", () => {
  it("are delivered: action.authorized and receipt.created, each signed", async () => {
    const id = randomUUID();
    const secret = `whsec_${randomBytes(32).toString("base64url")}`;
    await db.pool.query(
      "insert into webhook_endpoints (id, organization_id, url, event_types, secret_encrypted) values ($1, $2, $3, $4, $5)",
      [
        id,
        world.organizationId,
        `${rx.url}/gw`,
        ["action.authorized", "receipt.created"],
        sealSecret(credentialKey, id, secret),
      ],
    );
    const res = await gw.authorize(world.key, {
      tool: world.tool,
      arguments: { order: "o-1", amount: 25 },
      idempotency_key: `wh-${Date.now()}`,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { rows } = await db.pool.query<{ type: string }>(
      "select e.type from webhook_deliveries d join events e on e.id = d.event_id where d.endpoint_id = $1 order by e.type",
      [id],
    );
    expect(rows.map((r) => r.type)).toEqual(["action.authorized", "receipt.created"]);

    await new DeliveryWorker({
      pool: db.pool,
      credentialKey,
      allowLoopbackUrls: true,
      ca: [ca.caPem],
    }).runOnce();
    expect(rx.requests).toHaveLength(2);
    for (const r of rx.requests) {
      expect(
        verifyWebhook(r.raw, r.headers["service-signature"] as string, secret, new Date()),
      ).toMatchObject({ valid: true });
    }
    const bodies = rx.requests.map((r) => JSON.parse(r.raw.toString("utf8")));
    const receipt = bodies.find((b) => b.type === "receipt.created");
    expect(Object.keys(receipt.data).sort()).toEqual(
      [
        "bundle_sha256",
        "outcome",
        "protected_action_id",
        "receipt_id",
        "receipt_object_id",
        "thread_id",
      ].sort(),
    );
    expect(receipt.data).toMatchObject({
      receipt_id: res.body.receipt_id,
      protected_action_id: res.body.protected_action_id,
      receipt_object_id: res.body.receipt_object_id,
    });
    const authorized = bodies.find((b) => b.type === "action.authorized");
    expect(authorized.data.protected_action_id).toBe(res.body.protected_action_id);
    expect(JSON.stringify(bodies)).not.toContain("o-1"); // no arguments in events
  });
});
