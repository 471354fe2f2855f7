import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { createAgent, createMember, createOrganization } from "../../../test/fixtures/organization.js";
import { authenticateKey } from "./authenticate.js";
import { insertApiKey } from "./store.js";

let db: TestDatabase;
let org: string;
let agent: string;
let developer: string;
const hashKey = randomBytes(32);

beforeAll(async () => {
  db = await createTestDatabase();
  org = await createOrganization(db.pool);
  agent = await createAgent(db.pool, org);
  developer = await createMember(db.pool, org, "developer");
});
afterAll(async () => db?.drop());

const gatewayKey = (extra: Partial<Parameters<typeof insertApiKey>[2]> = {}) =>
  insertApiKey(db.pool, hashKey, {
    organizationId: org,
    kind: "gateway",
    environment: "live",
    name: "k",
    agentId: agent,
    createdBy: developer,
    ...extra,
  });

describe("authenticateKey (SPEC 5.1, 5.4)", () => {
  it("accepts a good gateway key for the Gateway", async () => {
    const k = await gatewayKey();
    const r = await authenticateKey(db.pool, hashKey, k.key, "gateway");
    expect(r).toMatchObject({
      ok: true,
      key: { id: k.id, organizationId: org, agentId: agent, environment: "live" },
    });
  });

  it("refuses malformed keys without a lookup", async () => {
    const k = await gatewayKey();
    expect(await authenticateKey(db.pool, hashKey, `${k.key}\n`, "gateway")).toEqual({
      ok: false,
      reason: "malformed",
    });
  });

  it("refuses an unknown prefix, a wrong secret, a wrong environment label and a wrong installation secret alike", async () => {
    const k = await gatewayKey();
    const wrongSecret = k.key.slice(0, -4) + (k.key.endsWith("AAAA") ? "BBBB" : "AAAA");
    const unknownPrefix = k.key.replace(k.prefix, "zzzzzzzzzzzz");
    const wrongEnv = k.key.replace("svc_live_", "svc_test_");
    for (const text of [wrongSecret, unknownPrefix, wrongEnv]) {
      expect(await authenticateKey(db.pool, hashKey, text, "gateway")).toEqual({
        ok: false,
        reason: "unknown",
      });
    }
    expect(await authenticateKey(db.pool, randomBytes(32), k.key, "gateway")).toEqual({
      ok: false,
      reason: "unknown",
    });
  });

  it("refuses revoked and expired keys", async () => {
    const revoked = await gatewayKey();
    await db.pool.query("update api_keys set revoked_at = now() where id = $1", [revoked.id]);
    expect(await authenticateKey(db.pool, hashKey, revoked.key, "gateway")).toEqual({
      ok: false,
      reason: "revoked",
    });
    const expiring = await gatewayKey({ expiresAt: new Date(Date.now() + 60_000) });
    expect((await authenticateKey(db.pool, hashKey, expiring.key, "gateway")).ok).toBe(true);
    await db.pool.query("update api_keys set expires_at = now() - interval '1 second' where id = $1", [
      expiring.id,
    ]);
    expect(await authenticateKey(db.pool, hashKey, expiring.key, "gateway")).toEqual({
      ok: false,
      reason: "expired",
    });
  });

  it("refuses a key of the other kind", async () => {
    const owner = await createMember(db.pool, org, "owner");
    const m = await insertApiKey(db.pool, hashKey, {
      organizationId: org,
      kind: "management",
      environment: "live",
      name: "m",
      scopes: ["read"],
      createdBy: owner,
    });
    expect(await authenticateKey(db.pool, hashKey, m.key, "gateway")).toEqual({
      ok: false,
      reason: "wrong_kind",
    });
    expect((await authenticateKey(db.pool, hashKey, m.key, "management")).ok).toBe(true);
    const g = await gatewayKey();
    expect(await authenticateKey(db.pool, hashKey, g.key, "management")).toEqual({
      ok: false,
      reason: "wrong_kind",
    });
  });

  it("refuses a gateway key whose agent is disabled, on the next request", async () => {
    const other = await createAgent(db.pool, org);
    const k = await gatewayKey({ agentId: other });
    expect((await authenticateKey(db.pool, hashKey, k.key, "gateway")).ok).toBe(true);
    await db.pool.query("update agents set status = 'disabled' where id = $1", [other]);
    expect(await authenticateKey(db.pool, hashKey, k.key, "gateway")).toEqual({
      ok: false,
      reason: "agent_disabled",
    });
  });

  it("refuses a key whose creator left, was disabled, or lost the role to create it", async () => {
    for (const change of [
      (u: string) => db.pool.query("delete from memberships where user_id = $1", [u]),
      (u: string) => db.pool.query("update users set disabled_at = now() where id = $1", [u]),
      (u: string) => db.pool.query("update memberships set role = 'viewer' where user_id = $1", [u]),
    ]) {
      const creator = await createMember(db.pool, org, "developer");
      const k = await gatewayKey({ createdBy: creator });
      expect((await authenticateKey(db.pool, hashKey, k.key, "gateway")).ok).toBe(true);
      await change(creator);
      expect(await authenticateKey(db.pool, hashKey, k.key, "gateway")).toEqual({
        ok: false,
        reason: "creator_not_allowed",
      });
    }
    // A developer may hold gateway keys but not management keys.
    const admin = await createMember(db.pool, org, "admin");
    const m = await insertApiKey(db.pool, hashKey, {
      organizationId: org,
      kind: "management",
      environment: "test",
      name: "m",
      scopes: ["read"],
      createdBy: admin,
    });
    await db.pool.query("update memberships set role = 'developer' where user_id = $1", [admin]);
    expect(await authenticateKey(db.pool, hashKey, m.key, "management")).toEqual({
      ok: false,
      reason: "creator_not_allowed",
    });
  });
});
