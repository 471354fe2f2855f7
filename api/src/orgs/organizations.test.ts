/**
 * Organizations, members, invitations, API keys and the audit log through the
 * real server: who may change what (SPEC 2.1, 4.4, 5.2), plan quotas (8.6),
 * LAST_OWNER, invitations by e-mail, the service's own key revocations with
 * their audit reasons (5.4), and revocation effective on the next request on
 * the Cloud API and at the Gateway's key check.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticateKey } from "@countersign/core/keys";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { createAgent } from "../../../test/fixtures/organization.js";
import { Browser, randomIp, startCloudApi, type CloudApi } from "../../../test/fixtures/cloud-api.js";

let db: TestDatabase;
let api: CloudApi;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startCloudApi(db, { defaultPlan: "startup" });
});
afterAll(async () => {
  await api?.close();
  await db?.drop();
});

async function newOrg(b: Browser, name = "Acme"): Promise<string> {
  const res = await b.post("/orgs", { name });
  expect(res.status).toBe(201);
  return res.body.organization.id;
}

/** Invite by e-mail and accept through the link; returns the member's browser and id. */
async function addMember(owner: Browser, org: string, role: string) {
  const b = api.browser();
  const { email, userId } = await b.signUpAndIn(api.smtp);
  const inv = await owner.post(`/orgs/${org}/invitations`, { email, role });
  expect(inv.status).toBe(201);
  const acc = await b.post("/invitations/accept", { token: api.smtp.lastToken(email, "invitations/accept") });
  expect(acc.status).toBe(200);
  return { b, userId, email };
}

const keyBrowser = (key: string) => {
  const b = new Browser(api.base, randomIp(), null);
  return (method: string, path: string, body?: unknown) =>
    b.request(method, path, body, { authorization: `Bearer ${key}` });
};
const count = async (sql: string, args: unknown[]) => Number((await db.pool.query(sql, args)).rows[0].n);

describe("organizations", () => {
  it("makes the creator owner and lists the organization for them", async () => {
    const b = api.browser();
    await b.signUpAndIn(api.smtp);
    const org = await newOrg(b, "Owner Co");
    const got = await b.get(`/orgs/${org}`);
    expect(got.body.organization).toMatchObject({
      name: "Owner Co",
      role: "owner",
      plan: "startup",
      approval_ttl_seconds: 86400,
      agent_disclosure: "rule",
    });
    expect(got.body.organization.data_retention).toEqual({
      plan_days: 90,
      organization_days: null,
      effective_days: 90,
    });
    expect((await b.get("/orgs")).body.items.map((o: { id: string }) => o.id)).toEqual([org]);
  });

  it("refuses a duplicate slug with 409 SLUG_TAKEN and an unverified account with 403 EMAIL_NOT_VERIFIED", async () => {
    const b = api.browser();
    await b.signUpAndIn(api.smtp);
    expect((await b.post("/orgs", { name: "One", slug: "taken-slug" })).status).toBe(201);
    const dup = await b.post("/orgs", { name: "Two", slug: "taken-slug" });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe("SLUG_TAKEN");
    const u = api.browser();
    const { email, userId } = await u.signUpAndIn(api.smtp);
    await db.pool.query("update users set email_verified_at = null where id = $1", [userId]);
    const before = await count("select count(*) as n from organizations", []);
    const res = await u.post("/orgs", { name: "Nope" });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("EMAIL_NOT_VERIFIED");
    expect(await count("select count(*) as n from organizations", [])).toBe(before);
    // but the session itself and sign-out still work
    expect((await u.get("/auth/session")).body.session.user.email).toBe(email);
  });

  it("lets admins change name and approval lifetime, only the owner observe and retention, and audits retention changes", async () => {
    const owner = api.browser();
    await owner.signUpAndIn(api.smtp);
    const org = await newOrg(owner);
    const { b: admin } = await addMember(owner, org, "admin");
    expect(
      (
        await admin.patch(`/orgs/${org}`, {
          name: "Renamed",
          approval_ttl_seconds: 120,
          agent_disclosure: "none",
        })
      ).status,
    ).toBe(200);
    for (const body of [
      { observe_max_hours: 2 },
      { observe_live_opt_in: true },
      { data_retention_days: 10 },
    ]) {
      const res = await admin.patch(`/orgs/${org}`, body);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("OWNER_REQUIRED");
    }
    const tooLong = await owner.patch(`/orgs/${org}`, { data_retention_days: 91 });
    expect(tooLong.body.error.code).toBe("INVALID_INPUT");
    const outOfRange = await owner.patch(`/orgs/${org}`, { approval_ttl_seconds: 59 });
    expect(outOfRange.body.error.code).toBe("VALIDATION_FAILED");
    const ok = await owner.patch(`/orgs/${org}`, { data_retention_days: 10, observe_max_hours: 2 });
    expect(ok.body.organization).toMatchObject({
      data_retention_days: 10,
      observe_max_hours: 2,
      name: "Renamed",
      approval_ttl_seconds: 120,
    });
    expect(ok.body.organization.data_retention.effective_days).toBe(10);
    const audit = await owner.get(`/orgs/${org}/audit?action=organization.retention_changed`);
    expect(audit.body.items).toHaveLength(1);
    expect(audit.body.items[0]).toMatchObject({
      actor: { type: "user" },
      target: { type: "organization", id: org },
      details: { from_days: null, to_days: 10 },
    });
  });
});

describe("members and invitations", () => {
  it("refuses every invitation on the free Developer plan with 402 and sends nothing", async () => {
    const owner = api.browser();
    await owner.signUpAndIn(api.smtp);
    const org = await newOrg(owner);
    await db.pool.query("update organizations set plan = 'developer' where id = $1", [org]);
    const sent = api.smtp.messages.length;
    const res = await owner.post(`/orgs/${org}/invitations`, {
      email: "friend@example.test",
      role: "viewer",
    });
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe("PLAN_LIMIT_EXCEEDED");
    expect(api.smtp.messages.length).toBe(sent);
    expect(await count("select count(*) as n from invitations where organization_id = $1", [org])).toBe(0);
  });

  it("counts open invitations against the member limit and refuses acceptance over the limit", async () => {
    const owner = api.browser();
    await owner.signUpAndIn(api.smtp);
    const org = await newOrg(owner);
    await db.pool.query("update organizations set plan = 'startup' where id = $1", [org]); // 10 members
    for (let i = 0; i < 9; i++)
      expect(
        (
          await owner.post(`/orgs/${org}/invitations`, {
            email: `seat${i}-${org}@example.test`,
            role: "viewer",
          })
        ).status,
      ).toBe(201);
    const over = await owner.post(`/orgs/${org}/invitations`, {
      email: `seat9-${org}@example.test`,
      role: "viewer",
    });
    expect(over.body.error.code).toBe("PLAN_LIMIT_EXCEEDED");
    // moved to the free plan: an open invitation can no longer be accepted, and nothing changes
    await db.pool.query("update organizations set plan = 'developer' where id = $1", [org]);
    const invitee = api.browser();
    await invitee.signUpAndIn(api.smtp, `seat0-${org}@example.test`);
    const refused = await invitee.post("/invitations/accept", {
      token: api.smtp.lastToken(`seat0-${org}@example.test`, "invitations/accept"),
    });
    expect(refused.status).toBe(402);
    expect(refused.body.error.code).toBe("PLAN_LIMIT_EXCEEDED");
    expect(await count("select count(*) as n from memberships where organization_id = $1", [org])).toBe(1);
  });

  it("checks the invitee's address, expiry and membership", async () => {
    const owner = api.browser();
    await owner.signUpAndIn(api.smtp);
    const org = await newOrg(owner);
    const other = api.browser();
    await other.signUpAndIn(api.smtp);
    const email = `invitee-${org}@example.test`;
    await owner.post(`/orgs/${org}/invitations`, { email, role: "developer", expires_in_seconds: 3600 });
    const token = api.smtp.lastToken(email, "invitations/accept");
    const dup = await owner.post(`/orgs/${org}/invitations`, { email, role: "viewer" });
    expect(dup.body.error.code).toBe("INVITATION_EXISTS");
    expect(
      (await owner.post(`/orgs/${org}/invitations`, { email, role: "viewer", expires_in_seconds: 3599 })).body
        .error.code,
    ).toBe("VALIDATION_FAILED");
    const mismatch = await other.post("/invitations/accept", { token });
    expect(mismatch.status).toBe(403);
    expect(mismatch.body.error.code).toBe("INVITATION_EMAIL_MISMATCH");
    expect((await other.post("/invitations/accept", { token: "nope" })).body.error.code).toBe(
      "INVITATION_INVALID",
    );
    await db.pool.query(
      "update invitations set expires_at = now() - interval '1 second' where organization_id = $1",
      [org],
    );
    const invitee = api.browser();
    await invitee.signUpAndIn(api.smtp, email);
    const expired = await invitee.post("/invitations/accept", { token });
    expect(expired.status).toBe(409);
    expect(expired.body.error.code).toBe("INVITATION_EXPIRED");
    expect(await count("select count(*) as n from memberships where organization_id = $1", [org])).toBe(1);
    const owners = await owner.post(`/orgs/${org}/invitations`, {
      email: `member-${org}@example.test`,
      role: "viewer",
    });
    expect(owners.status).toBe(201);
    expect((await owner.delete(`/orgs/${org}/invitations/${owners.body.invitation.id}`)).status).toBe(204);
    expect(
      (await owner.delete(`/orgs/${org}/invitations/${owners.body.invitation.id}`)).body.error.code,
    ).toBe("INVALID_STATE");
  });

  it("keeps at least one owner, lets only owners touch owners, and lets anyone leave", async () => {
    const owner = api.browser();
    const { userId: ownerId } = await owner.signUpAndIn(api.smtp);
    const org = await newOrg(owner);
    const { b: admin, userId: adminId } = await addMember(owner, org, "admin");
    const { b: viewer, userId: viewerId } = await addMember(owner, org, "viewer");
    const last = await owner.patch(`/orgs/${org}/members/${ownerId}`, { role: "admin" });
    expect(last.status).toBe(409);
    expect(last.body.error.code).toBe("LAST_OWNER");
    expect((await owner.delete(`/orgs/${org}/members/${ownerId}`)).body.error.code).toBe("LAST_OWNER");
    expect((await admin.patch(`/orgs/${org}/members/${viewerId}`, { role: "owner" })).body.error.code).toBe(
      "OWNER_REQUIRED",
    );
    expect((await admin.delete(`/orgs/${org}/members/${ownerId}`)).body.error.code).toBe("OWNER_REQUIRED");
    expect((await viewer.delete(`/orgs/${org}/members/${adminId}`)).body.error.code).toBe("FORBIDDEN");
    expect(
      (await admin.patch(`/orgs/${org}/members/${viewerId}`, { role: "approver" })).body.member.role,
    ).toBe("approver");
    expect((await viewer.delete(`/orgs/${org}/members/${viewerId}`)).status).toBe(204);
    expect((await viewer.get(`/orgs/${org}`)).status).toBe(404);
    const members = await owner.get(`/orgs/${org}/members`);
    expect(members.body.items.map((m: { role: string }) => m.role).sort()).toEqual(["admin", "owner"]);
  });
});

describe("API keys", () => {
  it("creates a key once with its secret, lists it without, and revokes it effective on the next request", async () => {
    const owner = api.browser();
    await owner.signUpAndIn(api.smtp);
    const org = await newOrg(owner);
    const res = await owner.post(`/orgs/${org}/api-keys`, {
      name: "ci",
      kind: "management",
      scopes: ["read"],
    });
    expect(res.status).toBe(201);
    expect(res.body.secret).toMatch(/^svc_live_[a-z0-9]{12}_[A-Za-z0-9_-]{43}$/);
    expect(res.body.api_key).toMatchObject({
      kind: "management",
      state: "active",
      scopes: ["read"],
      prefix: res.body.secret.slice(9, 21),
    });
    const list = await owner.get(`/orgs/${org}/api-keys`);
    expect(JSON.stringify(list.body)).not.toContain(res.body.secret.slice(22));
    const asKey = keyBrowser(res.body.secret);
    expect((await asKey("GET", `/orgs/${org}`)).status).toBe(200);
    expect(
      (await db.pool.query("select last_used_at from api_keys where id = $1", [res.body.api_key.id])).rows[0]
        .last_used_at,
    ).not.toBeNull();
    expect((await owner.post(`/orgs/${org}/api-keys/${res.body.api_key.id}/revoke`)).body.api_key.state).toBe(
      "revoked",
    );
    const after = await asKey("GET", `/orgs/${org}`);
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe("UNAUTHENTICATED");
    const again = await owner.post(`/orgs/${org}/api-keys/${res.body.api_key.id}/revoke`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("INVALID_STATE");
    const audit = await owner.get(`/orgs/${org}/audit`);
    expect(audit.body.items.map((e: { action: string }) => e.action)).toEqual(
      expect.arrayContaining(["api_key.created", "api_key.revoked"]),
    );
  });

  it("revokes a gateway key effective on the next Gateway key check", async () => {
    const owner = api.browser();
    await owner.signUpAndIn(api.smtp);
    const org = await newOrg(owner);
    const agent = await createAgent(db.pool, org);
    const res = await owner.post(`/orgs/${org}/api-keys`, {
      name: "agent",
      kind: "gateway",
      agent_id: agent,
      environment: "test",
    });
    expect(res.body.secret).toMatch(/^svc_test_/);
    expect((await authenticateKey(db.pool, api.keyHashSecret, res.body.secret, "gateway")).ok).toBe(true);
    await owner.post(`/orgs/${org}/api-keys/${res.body.api_key.id}/revoke`);
    expect(await authenticateKey(db.pool, api.keyHashSecret, res.body.secret, "gateway")).toEqual({
      ok: false,
      reason: "revoked",
    });
  });

  it("lets developers handle gateway keys only and see only those", async () => {
    const owner = api.browser();
    await owner.signUpAndIn(api.smtp);
    const org = await newOrg(owner);
    const { b: dev } = await addMember(owner, org, "developer");
    const agent = await createAgent(db.pool, org);
    const m = await owner.post(`/orgs/${org}/api-keys`, {
      name: "m",
      kind: "management",
      scopes: ["read", "agents:write"],
    });
    const g = await dev.post(`/orgs/${org}/api-keys`, { name: "g", kind: "gateway", agent_id: agent });
    expect(g.status).toBe(201);
    const refused = await dev.post(`/orgs/${org}/api-keys`, {
      name: "m2",
      kind: "management",
      scopes: ["read"],
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("FORBIDDEN");
    expect((await dev.post(`/orgs/${org}/api-keys/${m.body.api_key.id}/revoke`)).status).toBe(403);
    expect((await dev.get(`/orgs/${org}/api-keys`)).body.items.map((k: { kind: string }) => k.kind)).toEqual([
      "gateway",
    ]);
    expect((await owner.get(`/orgs/${org}/api-keys`)).body.items).toHaveLength(2);
  });

  it("refuses bad bodies with their codes and creates nothing", async () => {
    const owner = api.browser();
    await owner.signUpAndIn(api.smtp);
    const org = await newOrg(owner);
    const agent = await createAgent(db.pool, org);
    const cases: [unknown, string][] = [
      [{ name: "x", kind: "management", scopes: [] }, "VALIDATION_FAILED"],
      [{ name: "x", kind: "management", scopes: ["read", "read"] }, "VALIDATION_FAILED"],
      [{ name: "x", kind: "management", scopes: ["read"], agent_id: agent }, "VALIDATION_FAILED"],
      [{ name: "x", kind: "gateway", agent_id: agent, scopes: ["read"] }, "VALIDATION_FAILED"],
      [{ name: "", kind: "gateway", agent_id: agent }, "VALIDATION_FAILED"],
      [{ name: "x\ny", kind: "gateway", agent_id: agent }, "VALIDATION_FAILED"],
      [{ name: "x", kind: "gateway", agent_id: agent, expires_at: "2001-01-01T00:00:00Z" }, "INVALID_INPUT"],
      [{ name: "x", kind: "gateway", agent_id: "00000000-0000-4000-8000-000000000000" }, "INVALID_INPUT"],
    ];
    for (const [body, code] of cases)
      expect((await owner.post(`/orgs/${org}/api-keys`, body)).body.error.code, JSON.stringify(body)).toBe(
        code,
      );
    expect(await count("select count(*) as n from api_keys where organization_id = $1", [org])).toBe(0);
  });

  it("bounds non-revoked keys by plan, counting expired ones until revoked", async () => {
    const owner = api.browser();
    await owner.signUpAndIn(api.smtp);
    const org = await newOrg(owner);
    await db.pool.query("update organizations set plan = 'developer' where id = $1", [org]);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(
        (await owner.post(`/orgs/${org}/api-keys`, { name: `k${i}`, kind: "management", scopes: ["read"] }))
          .body.api_key.id,
      );
    await db.pool.query("update api_keys set expires_at = now() - interval '1 second' where id = $1", [
      ids[0],
    ]);
    const over = await owner.post(`/orgs/${org}/api-keys`, {
      name: "k5",
      kind: "management",
      scopes: ["read"],
    });
    expect(over.status).toBe(402);
    expect(over.body.error.code).toBe("PLAN_LIMIT_EXCEEDED");
    expect(await count("select count(*) as n from api_keys where organization_id = $1", [org])).toBe(5);
    await owner.post(`/orgs/${org}/api-keys/${ids[0]}/revoke`);
    expect(
      (await owner.post(`/orgs/${org}/api-keys`, { name: "k5", kind: "management", scopes: ["read"] }))
        .status,
    ).toBe(201);
  });

  it("is revoked by the service when its creator is removed, leaves or loses the role, with audited reasons", async () => {
    const owner = api.browser();
    await owner.signUpAndIn(api.smtp);
    const org = await newOrg(owner);
    const agent = await createAgent(db.pool, org);
    const keysOf = async (b: Browser) => ({
      m: (await b.post(`/orgs/${org}/api-keys`, { name: "m", kind: "management", scopes: ["read"] })).body,
      g: (await b.post(`/orgs/${org}/api-keys`, { name: "g", kind: "gateway", agent_id: agent })).body,
    });
    const state = async (id: string) =>
      (await db.pool.query("select revoked_reason from api_keys where id = $1", [id])).rows[0].revoked_reason;

    const removed = await addMember(owner, org, "admin");
    const k1 = await keysOf(removed.b);
    await owner.delete(`/orgs/${org}/members/${removed.userId}`);
    expect([await state(k1.m.api_key.id), await state(k1.g.api_key.id)]).toEqual([
      "creator_removed",
      "creator_removed",
    ]);
    expect((await keyBrowser(k1.m.secret)("GET", `/orgs/${org}`)).status).toBe(401);

    const leaver = await addMember(owner, org, "admin");
    const k2 = await keysOf(leaver.b);
    await leaver.b.delete(`/orgs/${org}/members/${leaver.userId}`);
    expect([await state(k2.m.api_key.id), await state(k2.g.api_key.id)]).toEqual([
      "creator_left",
      "creator_left",
    ]);

    const demoted = await addMember(owner, org, "admin");
    const k3 = await keysOf(demoted.b);
    await owner.patch(`/orgs/${org}/members/${demoted.userId}`, { role: "developer" });
    expect([await state(k3.m.api_key.id), await state(k3.g.api_key.id)]).toEqual(["creator_lost_role", null]);
    await owner.patch(`/orgs/${org}/members/${demoted.userId}`, { role: "viewer" });
    expect(await state(k3.g.api_key.id)).toBe("creator_lost_role");

    const audit = await owner.get(`/orgs/${org}/audit?action=api_key.revoked&limit=100`);
    expect(audit.body.items.map((e: { details: { reason: string } }) => e.details.reason).sort()).toEqual([
      "creator_left",
      "creator_left",
      "creator_lost_role",
      "creator_lost_role",
      "creator_removed",
      "creator_removed",
    ]);
    for (const e of audit.body.items) expect(e.actor.type).toBe("service");
  });

  it("revokes a deleted account's keys in every organization (creator_deleted)", async () => {
    const { revokeCreatorKeys } = await import("../access/creator-revocations.js");
    const owner = api.browser();
    const { userId } = await owner.signUpAndIn(api.smtp);
    const orgs = [await newOrg(owner, "One"), await newOrg(owner, "Two")];
    const ids: string[] = [];
    for (const org of orgs)
      ids.push(
        (await owner.post(`/orgs/${org}/api-keys`, { name: "m", kind: "management", scopes: ["read"] })).body
          .api_key.id,
      );
    await db.pool.query("update users set deleted_at = now() where id = $1", [userId]);
    expect(await revokeCreatorKeys(db.pool, null, userId, "creator_deleted")).toBe(2);
    const { rows } = await db.pool.query("select revoked_reason from api_keys where id = any($1)", [ids]);
    expect(rows.map((r) => r.revoked_reason)).toEqual(["creator_deleted", "creator_deleted"]);
  });
});

describe("billing", () => {
  it("reports configured false and answers checkout and portal 503 without Retry-After", async () => {
    const owner = api.browser();
    await owner.signUpAndIn(api.smtp);
    const org = await newOrg(owner);
    const billing = await owner.get(`/orgs/${org}/billing`);
    expect(billing.body).toMatchObject({
      configured: false,
      plan: "startup",
      quotas: { members: 10, agents: 50 },
    });
    for (const path of ["checkout", "portal"]) {
      const res = await owner.post(`/orgs/${org}/billing/${path}`);
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe("SERVICE_UNAVAILABLE");
      expect(res.headers.get("retry-after")).toBeNull();
    }
  });
});
