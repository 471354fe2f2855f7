/**
 * The webhook endpoint routes (SPEC 2.10, 6.4, 8.1, 8.6): create, read,
 * change, rotate, delete, the URL rules with the loopback switch off, the
 * shared limit of test events and redeliveries, and that every refusal
 * changes nothing.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startReceiver, type Receiver } from "../fixtures/https-receiver.js";
import { startWebhookHarness, type WebhookHarness } from "./harness.js";

let h: WebhookHarness;
let rx: Receiver;

beforeAll(async () => {
  // The switch is off, as in production: loopback receivers are refused too.
  h = await startWebhookHarness({ allowLoopbackUrls: false });
  rx = await startReceiver(h.ca);
  Object.assign(h.resolver.answers, {
    "public.test": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"],
    "metadata.test": ["169.254.169.254"],
    "mixed.test": ["93.184.216.34", "10.0.0.1"],
    "mapped.test": ["::ffff:10.0.0.1"],
    "nat64.test": ["64:ff9b::a00:1"],
    "cgnat.test": ["100.64.0.1"],
    "loop6.test": ["::1"],
  });
});
afterAll(async () => {
  await rx.close();
  await h.close();
});
beforeEach(async () => {
  h.org = await h.newOrganization();
});

const count = async (table: string) =>
  Number((await h.db.pool.query<{ n: string }>(`select count(*) as n from ${table}`)).rows[0]!.n);
const auditCount = async (action: string) =>
  Number(
    (await h.db.pool.query<{ n: string }>("select count(*) as n from audit_log where action = $1", [action]))
      .rows[0]!.n,
  );

describe("URL rules on create and change", () => {
  const refused: [string, string][] = [
    ["https://169.254.169.254/latest/meta-data", "link_local_address"],
    ["https://[::ffff:10.0.0.1]/", "private_address"],
    ["https://[64:ff9b::a00:1]/", "private_address"],
    ["https://100.64.0.1/", "carrier_grade_nat_address"],
    ["https://[::1]/", "loopback_address"],
    ["https://127.0.0.1/", "loopback_address"],
    ["https://10.1.2.3/", "private_address"],
    ["https://192.168.0.10/", "private_address"],
    ["https://224.0.0.1/", "multicast_address"],
    ["https://192.0.2.1/", "documentation_address"],
    ["https://[fe80::1]/", "link_local_address"],
    ["https://[fd00::1]/", "private_address"],
    ["https://metadata.test/", "link_local_address"],
    ["https://mixed.test/", "private_address"],
    ["https://mapped.test/", "private_address"],
    ["https://nat64.test/", "private_address"],
    ["https://cgnat.test/", "carrier_grade_nat_address"],
    ["https://loop6.test/", "loopback_address"],
    ["https://nowhere.test/", "unresolvable"],
    ["http://public.test/", "not_https"],
    ["https://user:pw@public.test/", "has_userinfo"],
    ["https://public.test/#x", "has_fragment"],
    [`https://public.test/${"a".repeat(2030)}`, "too_long"],
    ["not a url", "invalid_url"],
  ];

  it.each(refused)("%s is refused: %s", async (url, reason) => {
    const before = await count("webhook_endpoints");
    const res = await h.owner.post(`/orgs/${h.org}/webhooks`, { url, event_types: ["receipt.created"] });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("URL_NOT_ALLOWED");
    expect(res.body.error.details).toEqual({ reason });
    expect(res.text).not.toContain("10.0.0.1"); // the resolved address is not told
    expect(await count("webhook_endpoints")).toBe(before);
  });

  it("accepts a name whose every address is public, exactly 2048 characters long", async () => {
    const url = `https://public.test/${"a".repeat(2048 - "https://public.test/".length)}`;
    expect(url).toHaveLength(2048);
    const res = await h.owner.post(`/orgs/${h.org}/webhooks`, { url, event_types: ["receipt.created"] });
    expect(res.status).toBe(201);
  });

  it("checks a changed URL the same way and leaves the endpoint as it was", async () => {
    const e = await h.createEndpoint("https://public.test/hook");
    const before = (await h.owner.get(`/orgs/${h.org}/webhooks/${e.id}`)).body.webhook;
    const res = await h.owner.patch(`/orgs/${h.org}/webhooks/${e.id}`, {
      url: "https://169.254.169.254/",
      description: "changed",
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({
      code: "URL_NOT_ALLOWED",
      details: { reason: "link_local_address" },
    });
    expect((await h.owner.get(`/orgs/${h.org}/webhooks/${e.id}`)).body.webhook).toEqual(before);
  });
});

describe("endpoints", () => {
  it("returns the secret once on create, never in reads, and audits without it", async () => {
    const res = await h.owner.post(`/orgs/${h.org}/webhooks`, {
      url: "https://public.test/a",
      description: "Payments",
      event_types: ["receipt.created", "action.denied"],
    });
    expect(res.status).toBe(201);
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(res.body.webhook).toMatchObject({
      url: "https://public.test/a",
      description: "Payments",
      enabled: true,
      event_types: ["receipt.created", "action.denied"],
      created_by: h.ownerId,
      disabled_reason: null,
      previous_secret_expires_at: null,
    });
    const secret = res.body.secret as string;
    const id = res.body.webhook.id as string;
    const one = await h.owner.get(`/orgs/${h.org}/webhooks/${id}`);
    const list = await h.owner.get(`/orgs/${h.org}/webhooks`);
    expect(list.body.items.map((w: { id: string }) => w.id)).toEqual([id]);
    expect(one.body.webhook).toEqual(res.body.webhook);
    const stored = await h.db.pool.query(
      "select secret_encrypted::text as s from webhook_endpoints where id = $1",
      [id],
    );
    const audits = await h.db.pool.query("select details::text as d from audit_log where target_id = $1", [
      id,
    ]);
    for (const text of [
      one.text,
      list.text,
      stored.rows[0].s,
      ...audits.rows.map((r) => r.d),
      ...h.api.logs,
    ]) {
      expect(text).not.toContain(secret.slice(6));
    }
  });

  it("refuses bad bodies with nothing written", async () => {
    const before = await count("webhook_endpoints");
    const bad = [
      { url: "https://public.test/", event_types: [] },
      { url: "https://public.test/", event_types: ["no.such_type"] },
      { url: "https://public.test/", event_types: ["webhook.test"] },
      { url: "https://public.test/", event_types: ["receipt.created", "receipt.created"] },
      { url: "https://public.test/", event_types: ["receipt.created"], description: "x".repeat(501) },
      { url: "https://public.test/", event_types: ["receipt.created"], secret: "whsec_mine" },
    ];
    for (const body of bad) {
      const res = await h.owner.post(`/orgs/${h.org}/webhooks`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_FAILED");
    }
    expect(
      (
        await h.owner.post(`/orgs/${h.org}/webhooks`, {
          url: "https://public.test/",
          event_types: ["receipt.created"],
          description: "x".repeat(500),
        })
      ).status,
    ).toBe(201);
    expect(await count("webhook_endpoints")).toBe(before + 1);
  });

  it("enforces the plan's endpoint limit with 402 and creates nothing", async () => {
    const org = await h.newOrganization(h.owner, "developer");
    await h.createEndpoint("https://public.test/1", undefined, h.owner, org);
    await h.createEndpoint("https://public.test/2", undefined, h.owner, org);
    const res = await h.owner.post(`/orgs/${org}/webhooks`, {
      url: "https://public.test/3",
      event_types: ["receipt.created"],
    });
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe("PLAN_LIMIT_EXCEEDED");
    expect((await h.owner.get(`/orgs/${org}/webhooks`)).body.items).toHaveLength(2);
  });

  it("changes fields, audits webhook.updated, and 404s another organization's endpoint", async () => {
    const e = await h.createEndpoint("https://public.test/x");
    const res = await h.owner.patch(`/orgs/${h.org}/webhooks/${e.id}`, {
      description: "new",
      event_types: ["policy.activated"],
      enabled: false,
    });
    expect(res.status).toBe(200);
    expect(res.body.webhook).toMatchObject({
      description: "new",
      event_types: ["policy.activated"],
      enabled: false,
    });
    expect(res.body.secret).toBeUndefined();
    const other = await h.newOrganization();
    expect((await h.owner.get(`/orgs/${other}/webhooks/${e.id}`)).status).toBe(404);
    expect((await h.owner.patch(`/orgs/${other}/webhooks/${e.id}`, { enabled: true })).status).toBe(404);
    expect((await h.owner.delete(`/orgs/${other}/webhooks/${e.id}`)).status).toBe(404);
    expect((await h.owner.get(`/orgs/${h.org}/webhooks/not-a-uuid`)).status).toBe(404);
    const empty = await h.owner.patch(`/orgs/${h.org}/webhooks/${e.id}`, {});
    expect(empty.status).toBe(400);
    const { rows } = await h.db.pool.query(
      "select details from audit_log where target_id = $1 and action = 'webhook.updated'",
      [e.id],
    );
    expect(rows).toEqual([
      { details: { description: "new", event_types: ["policy.activated"], enabled: false } },
    ]);
  });

  it("deleting an endpoint deletes its deliveries and their log, and keeps the events", async () => {
    const e = await h.createEndpoint("https://public.test/gone", ["action.denied"]);
    const eventId = await h.emit("action.denied");
    // One attempt in the delivery log.
    await h.db.pool.query(
      "insert into webhook_attempts (delivery_id, number, started_at, finished_at, error) select id, 1, now(), now(), 'x' from webhook_deliveries where endpoint_id = $1",
      [e.id],
    );
    expect((await h.owner.delete(`/orgs/${h.org}/webhooks/${e.id}`)).status).toBe(204);
    expect(
      (await h.db.pool.query("select 1 from webhook_deliveries where endpoint_id = $1", [e.id])).rows,
    ).toHaveLength(0);
    expect(
      (
        await h.db.pool.query(
          "select 1 from webhook_attempts a left join webhook_deliveries d on d.id = a.delivery_id where d.id is null",
        )
      ).rows,
    ).toHaveLength(0);
    expect((await h.db.pool.query("select 1 from events where id = $1", [eventId])).rows).toHaveLength(1);
    expect(await auditCount("webhook.deleted")).toBeGreaterThan(0);
  });
});

describe("test events and the shared limit", () => {
  it("sends webhook.test to that endpoint only; 5 per minute per endpoint with redeliveries; a refusal creates nothing", async () => {
    const a = await h.createEndpoint("https://public.test/a", ["receipt.created"]);
    const b = await h.createEndpoint("https://public.test/b", ["receipt.created"]);
    const res = await h.owner.post(`/orgs/${h.org}/webhooks/${a.id}/test`);
    expect(res.status).toBe(202);
    expect(res.body.delivery).toMatchObject({ event_type: "webhook.test", state: "pending", attempts: [] });
    const { rows } = await h.db.pool.query(
      "select type, data, webhook_endpoint_id from events where id = $1",
      [res.body.delivery.event_id],
    );
    expect(rows[0]).toEqual({ type: "webhook.test", data: { webhook_id: a.id }, webhook_endpoint_id: a.id });
    expect((await h.owner.get(`/orgs/${h.org}/webhooks/${b.id}/deliveries`)).body.items).toHaveLength(0);

    // A failed delivery to redeliver, sharing the same 5 per minute.
    const eventId = await h.emit("receipt.created");
    await h.db.pool.query(
      "update webhook_deliveries set state = 'failed', failed_at = now() where event_id = $1 and endpoint_id = $2",
      [eventId, a.id],
    );
    const failed = (
      await h.db.pool.query("select id from webhook_deliveries where event_id = $1 and endpoint_id = $2", [
        eventId,
        a.id,
      ])
    ).rows[0].id;
    for (let i = 0; i < 3; i++)
      expect((await h.owner.post(`/orgs/${h.org}/webhooks/${a.id}/test`)).status).toBe(202);
    expect(
      (await h.owner.post(`/orgs/${h.org}/webhooks/${a.id}/deliveries/${failed}/redeliver`)).status,
    ).toBe(202);
    const events = await count("events");
    const over = await h.owner.post(`/orgs/${h.org}/webhooks/${a.id}/test`);
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe("RATE_LIMITED");
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await count("events")).toBe(events);
    // Another endpoint has its own 5.
    expect((await h.owner.post(`/orgs/${h.org}/webhooks/${b.id}/test`)).status).toBe(202);
  });

  it("refuses a test event for a disabled endpoint with 409 ENDPOINT_DISABLED", async () => {
    const e = await h.createEndpoint("https://public.test/off");
    await h.owner.patch(`/orgs/${h.org}/webhooks/${e.id}`, { enabled: false });
    const events = await count("events");
    const res = await h.owner.post(`/orgs/${h.org}/webhooks/${e.id}/test`);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("ENDPOINT_DISABLED");
    expect(await count("events")).toBe(events);
  });
});
