/**
 * What the operator reads instead of every key (docs/access.md, beyond the spec): a gateway key or
 * webhook endpoint created for a named resource (`?created_for=`) and listed by it, keys listed
 * unrevoked only (`state=active`), one key read by id. Within one organization only; a bad value is
 * 400 VALIDATION_FAILED and writes nothing.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { startCloudApi, type CloudApi } from "../../../test/fixtures/cloud-api.js";
import { addMember, expectRefusedUnchanged, orgWithOwner } from "../../../test/fixtures/configuration.js";

let db: TestDatabase;
let api: CloudApi;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startCloudApi(db, {
    defaultPlan: "startup",
    extra: {
      webhooks: {
        credentialKey: randomBytes(32),
        allowLoopbackUrls: false,
        resolve: async () => [{ address: "93.184.216.34", family: 4 as const }],
      },
    },
  });
});
afterAll(async () => {
  await api?.close();
  await db?.drop();
});

const uid = "0b7c3a52-8a51-4c1e-9d51-3f1f3c6c2a10";
const rows = async (table: "api_keys" | "webhook_endpoints") =>
  (await db.pool.query(`select * from ${table} order by id`)).rows;

describe("gateway keys created for a resource", () => {
  it("are listed by it (unrevoked only on request) and read one by one, in their organization only", async () => {
    const o = await orgWithOwner(api);
    const agent = (await o.owner.post(`/orgs/${o.org}/agents`, { name: "worker" })).body.agent;
    const body = { kind: "gateway", name: "k", agent_id: agent.id, environment: "live" };
    const a = await o.owner.post(`/orgs/${o.org}/api-keys?created_for=${uid}`, body);
    const b = await o.owner.post(`/orgs/${o.org}/api-keys?created_for=${uid}`, body);
    const other = await o.owner.post(`/orgs/${o.org}/api-keys`, body);
    expect([a.status, b.status, other.status]).toEqual([201, 201, 201]);
    expect((await o.owner.post(`/orgs/${o.org}/api-keys/${a.body.api_key.id}/revoke`, {})).status).toBe(200);

    const ids = async (query: string) =>
      (await o.owner.get(`/orgs/${o.org}/api-keys?${query}`)).body.items.map((k: { id: string }) => k.id);
    expect(await ids(`created_for=${uid}`)).toEqual([b.body.api_key.id, a.body.api_key.id]);
    expect(await ids(`created_for=${uid}&state=active`)).toEqual([b.body.api_key.id]);
    expect(await ids("kind=gateway&state=active")).toEqual([other.body.api_key.id, b.body.api_key.id]);

    const one = await o.owner.get(`/orgs/${o.org}/api-keys/${b.body.api_key.id}`);
    expect(one.status).toBe(200);
    expect(one.body.api_key).toEqual(b.body.api_key);
    expect(JSON.stringify(one.body)).not.toContain(b.body.secret);

    // Another organization sees none of it.
    const stranger = await orgWithOwner(api);
    expect(
      (await stranger.owner.get(`/orgs/${stranger.org}/api-keys?created_for=${uid}`)).body.items,
    ).toEqual([]);
    const foreign = await stranger.owner.get(`/orgs/${stranger.org}/api-keys/${b.body.api_key.id}`);
    expect([foreign.status, foreign.body.error.code]).toEqual([404, "NOT_FOUND"]);
  });

  it("hides a management key from a developer, as the list does", async () => {
    const o = await orgWithOwner(api);
    const m = await o.owner.post(`/orgs/${o.org}/api-keys`, {
      kind: "management",
      name: "ci",
      scopes: ["read"],
      environment: "live",
    });
    expect(m.status).toBe(201);
    const dev = await addMember(api, o, "developer");
    const res = await dev.b.get(`/orgs/${o.org}/api-keys/${m.body.api_key.id}`);
    expect([res.status, res.body.error.code]).toEqual([404, "NOT_FOUND"]);
    expect((await o.owner.get(`/orgs/${o.org}/api-keys/${m.body.api_key.id}`)).status).toBe(200);
  });

  it("refuses a bad created_for or state with VALIDATION_FAILED and writes nothing", async () => {
    const o = await orgWithOwner(api);
    const agent = (await o.owner.post(`/orgs/${o.org}/agents`, { name: "worker" })).body.agent;
    const body = { kind: "gateway", name: "k", agent_id: agent.id, environment: "live" };
    for (const bad of ["", "a/b", "x".repeat(129)]) {
      const before = await rows("api_keys");
      const res = await expectRefusedUnchanged(
        db.pool,
        () => o.owner.post(`/orgs/${o.org}/api-keys?created_for=${encodeURIComponent(bad)}`, body),
        400,
        "VALIDATION_FAILED",
      );
      expect(JSON.stringify(res.body.error.details)).toContain("created_for");
      expect(await rows("api_keys")).toEqual(before);
    }
    const list = await o.owner.get(`/orgs/${o.org}/api-keys?state=revoked`);
    expect([list.status, list.body.error.code]).toEqual([400, "VALIDATION_FAILED"]);
  });
});

describe("webhook endpoints created for a resource", () => {
  it("are listed by it, in their organization only; a bad value writes nothing", async () => {
    const o = await orgWithOwner(api);
    const body = { url: "https://hooks.example.com/a", event_types: ["receipt.created"] };
    const made = await o.owner.post(`/orgs/${o.org}/webhooks?created_for=${uid}`, body);
    const other = await o.owner.post(`/orgs/${o.org}/webhooks`, body);
    expect([made.status, other.status]).toEqual([201, 201]);
    const listed = await o.owner.get(`/orgs/${o.org}/webhooks?created_for=${uid}`);
    expect(listed.body.items.map((e: { id: string }) => e.id)).toEqual([made.body.webhook.id]);
    expect((await o.owner.get(`/orgs/${o.org}/webhooks`)).body.items).toHaveLength(2);
    const stranger = await orgWithOwner(api);
    expect(
      (await stranger.owner.get(`/orgs/${stranger.org}/webhooks?created_for=${uid}`)).body.items,
    ).toEqual([]);

    const before = await rows("webhook_endpoints");
    const res = await expectRefusedUnchanged(
      db.pool,
      () => o.owner.post(`/orgs/${o.org}/webhooks?created_for=${encodeURIComponent("no spaces")}`, body),
      400,
      "VALIDATION_FAILED",
    );
    expect(JSON.stringify(res.body.error.details)).toContain("created_for");
    expect(await rows("webhook_endpoints")).toEqual(before);
  });
});
