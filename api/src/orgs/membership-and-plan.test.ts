/**
 * Lines of SPEC 4.4, 5.5, 7.2 and 8.6 about people and plans, through the real Cloud API:
 * ALREADY_MEMBER, POST /orgs/<id>/switch, GET .../invitations, the routes a session without a
 * verified address may still use, and a move to a smaller plan that deletes and disables nothing.
 * Every refusal is checked to change nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticateKey } from "@countersign/core/keys";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { startCloudApi, type Answer, type CloudApi } from "../../../test/fixtures/cloud-api.js";
import { addMember, managementKey, orgWithOwner } from "../../../test/fixtures/configuration.js";

let db: TestDatabase;
let api: CloudApi;

beforeAll(async () => {
  db = await createTestDatabase();
  // The installation's default plan is the free one: an organization without a plan of its own is on it.
  api = await startCloudApi(db, { defaultPlan: "developer" });
});
afterAll(async () => {
  await api?.close();
  await db?.drop();
});

const refused = (res: Answer, status: number, code: string) => {
  expect(res.status).toBe(status);
  expect(res.body.error.code).toBe(code);
};

/** Every row of what people and plans touch (the organizations' own rows aside). */
async function snapshot(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const t of [
    "users",
    "memberships",
    "invitations",
    "agents",
    "api_keys",
    "policies",
    "policy_versions",
    "audit_log",
  ]) {
    const { rows } = await db.pool.query(
      `select coalesce(json_agg(t order by t::text), '[]') as rows from ${t} t`,
    );
    out[t] = rows[0].rows;
  }
  return out;
}

/** Runs a call that must be refused and checks that nothing changed. */
async function refusedUnchanged(call: () => Promise<Answer>, status: number, code: string) {
  const before = await snapshot();
  refused(await call(), status, code);
  expect(await snapshot()).toEqual(before);
}

describe("ALREADY_MEMBER (409)", () => {
  it("inviting the address of a member is refused, and no e-mail is sent", async () => {
    const o = await orgWithOwner(api, { plan: "startup", db: db.pool });
    const member = api.browser();
    const { email } = await member.signUpAndIn(api.smtp);
    expect((await o.owner.post(`/orgs/${o.org}/invitations`, { email, role: "viewer" })).status).toBe(201);
    expect(
      (await member.post("/invitations/accept", { token: api.smtp.lastToken(email, "invitations/accept") }))
        .status,
    ).toBe(200);
    const mails = api.smtp.to(email).length;
    await refusedUnchanged(
      () => o.owner.post(`/orgs/${o.org}/invitations`, { email: email.toUpperCase(), role: "admin" }),
      409,
      "ALREADY_MEMBER",
    );
    expect(api.smtp.to(email)).toHaveLength(mails);
  });

  it("accepting an invitation of an organization one already belongs to is refused; the role stays", async () => {
    const o = await orgWithOwner(api, { plan: "startup", db: db.pool });
    const person = api.browser();
    const { email, userId } = await person.signUpAndIn(api.smtp);
    expect((await o.owner.post(`/orgs/${o.org}/invitations`, { email, role: "admin" })).status).toBe(201);
    // The person became a member meanwhile by another way than this invitation.
    await db.pool.query(
      "insert into memberships (organization_id, user_id, role) values ($1, $2, 'viewer')",
      [o.org, userId],
    );
    const token = api.smtp.lastToken(email, "invitations/accept");
    await refusedUnchanged(() => person.post("/invitations/accept", { token }), 409, "ALREADY_MEMBER");
    expect((await person.get(`/orgs/${o.org}`)).body.organization.role).toBe("viewer");
  });
});

describe("POST /orgs/<org_id>/switch (Members, sessions only)", () => {
  it("sets the session's current organization, which GET /auth/session then reports", async () => {
    const a = await orgWithOwner(api);
    const b = await a.owner.post("/orgs", { name: "Second Co" });
    expect(b.status).toBe(201);
    const second = b.body.organization.id as string;
    const res = await a.owner.post(`/orgs/${second}/switch`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ current_organization_id: second });
    expect((await a.owner.get("/auth/session")).body.session.current_organization_id).toBe(second);
    expect((await a.owner.post(`/orgs/${a.org}/switch`)).body).toEqual({ current_organization_id: a.org });
    expect((await a.owner.get("/auth/session")).body.session.current_organization_id).toBe(a.org);
  });

  it("refuses another organization (404), a missing CSRF token (403), a management key (403); the session keeps its organization", async () => {
    const a = await orgWithOwner(api);
    const other = await orgWithOwner(api);
    await a.owner.post(`/orgs/${a.org}/switch`);
    const current = async () => (await a.owner.get("/auth/session")).body.session.current_organization_id;
    refused(await a.owner.post(`/orgs/${other.org}/switch`), 404, "NOT_FOUND");
    refused(await a.owner.post(`/orgs/not-an-id/switch`), 404, "NOT_FOUND");
    refused(
      await a.owner.post(`/orgs/${other.org}/switch`, undefined, { "x-service-csrf": "" }),
      403,
      "CSRF_FAILED",
    );
    expect(await current()).toBe(a.org);
    // Every member may switch: a viewer too.
    const o = await orgWithOwner(api, { plan: "startup", db: db.pool });
    const viewer = await addMember(api, o, "viewer");
    expect((await viewer.b.post(`/orgs/${o.org}/switch`)).status).toBe(200);
    const key = await managementKey(api, o, ["read"]);
    refused(await key("POST", `/orgs/${o.org}/switch`), 403, "FORBIDDEN");
  });
});

describe("GET /orgs/<org_id>/invitations (Admins)", () => {
  it("lists the open invitations only, with their fields; developers, viewers, keys and other organizations are refused", async () => {
    const o = await orgWithOwner(api, { plan: "startup", db: db.pool });
    const open = `open-${Date.now()}@example.test`;
    const revoked = `revoked-${Date.now()}@example.test`;
    const created = await o.owner.post(`/orgs/${o.org}/invitations`, { email: open, role: "developer" });
    const gone = await o.owner.post(`/orgs/${o.org}/invitations`, { email: revoked, role: "viewer" });
    expect((await o.owner.delete(`/orgs/${o.org}/invitations/${gone.body.invitation.id}`)).status).toBe(204);
    const accepted = await addMember(api, o, "admin");

    const list = await accepted.b.get(`/orgs/${o.org}/invitations`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      items: [
        {
          id: created.body.invitation.id,
          email: open,
          role: "developer",
          invited_by: o.ownerId,
          created_at: expect.any(String),
          expires_at: expect.any(String),
        },
      ],
      next_cursor: null,
    });
    const lifetime = Date.parse(list.body.items[0].expires_at) - Date.parse(list.body.items[0].created_at);
    expect(lifetime).toBe(7 * 24 * 3600 * 1000);
    // The owner sees the same list.
    expect((await o.owner.get(`/orgs/${o.org}/invitations`)).body).toEqual(list.body);

    const developer = await addMember(api, o, "developer");
    refused(await developer.b.get(`/orgs/${o.org}/invitations`), 403, "FORBIDDEN");
    const key = await managementKey(api, o, ["read"]);
    refused(await key("GET", `/orgs/${o.org}/invitations`), 403, "FORBIDDEN");
    const stranger = await orgWithOwner(api);
    refused(await stranger.owner.get(`/orgs/${o.org}/invitations`), 404, "NOT_FOUND");
    refused(await o.owner.get(`/orgs/${o.org}/invitations?limit=5`), 400, "VALIDATION_FAILED");
  });
});

describe("a session whose address is not verified (SPEC 5.5)", () => {
  it("may use verification, e-mail change, sign-out, the session itself and password changes; every other route is 403 EMAIL_NOT_VERIFIED and changes nothing", async () => {
    const o = await orgWithOwner(api);
    const b = api.browser();
    const { email, password, userId } = await b.signUpAndIn(api.smtp);
    await db.pool.query("update users set email_verified_at = null where id = $1", [userId]);

    for (const [method, path, body] of [
      ["GET", "/orgs", undefined],
      ["POST", "/orgs", { name: "Not yet" }],
      ["GET", `/orgs/${o.org}`, undefined],
      ["GET", "/me/identities", undefined],
      ["POST", "/me/identity-challenges", {}],
      ["POST", "/invitations/accept", { token: "x".repeat(43) }],
      ["GET", "/gateway/identity", undefined],
    ] as const) {
      await refusedUnchanged(() => b.request(method, path, body), 403, "EMAIL_NOT_VERIFIED");
    }

    // The session itself.
    const session = await b.get("/auth/session");
    expect(session.status).toBe(200);
    expect(session.body.session.user.email).toBe(email);
    // Verification: asking for a new link, then following it.
    expect((await b.post("/auth/email/resend", { email })).status).toBe(202);
    // A password change.
    const changed = await b.post("/auth/password", {
      current_password: password,
      new_password: `${password}!`,
    });
    expect(changed.status).toBe(204);
    // An e-mail change: the link goes to the new address.
    const newEmail = `changed-${Date.now()}@example.test`;
    const change = await b.post("/me/email", { new_email: newEmail, password: `${password}!` });
    expect(change.status).toBe(202);
    expect(api.smtp.to(newEmail).length).toBeGreaterThan(0);
    const verify = await b.post("/auth/email/verify", { token: api.smtp.lastToken(email, "verify-email") });
    expect(verify.status).toBe(200);
    // Verified now: the routes refused before answer.
    expect((await b.get("/orgs")).status).toBe(200);
    await db.pool.query("update users set email_verified_at = null where id = $1", [userId]);
    // Sign-out.
    expect((await b.post("/auth/signout")).status).toBe(204);
    refused(await b.get("/auth/session"), 401, "UNAUTHENTICATED");
  });
});

describe("moving to a smaller plan (SPEC 8.6) deletes and disables nothing", () => {
  it("an organization over the free plan's quotas keeps every item, each still usable; only new creations are refused 402", async () => {
    // Growth, then the plan of its own removed: the installation's default, the free Developer plan
    // (1 member, 5 agents, 5 keys, 5 policies). The billing routes change the plan the same way
    // (the organization's plan column); they are tested in api/src/billing.
    const o = await orgWithOwner(api, { plan: "growth", db: db.pool });
    const admin = await addMember(api, o, "admin");
    const agents: string[] = [];
    for (let i = 0; i < 6; i++) {
      const a = await o.owner.post(`/orgs/${o.org}/agents`, { name: `agent ${i}` });
      expect(a.status).toBe(201);
      agents.push(a.body.agent.id);
    }
    const secrets: string[] = [];
    for (let i = 0; i < 6; i++) {
      const k = await o.owner.post(`/orgs/${o.org}/api-keys`, {
        name: `key ${i}`,
        kind: "gateway",
        agent_id: agents[i],
      });
      expect(k.status).toBe(201);
      secrets.push(k.body.secret);
    }
    for (let i = 0; i < 6; i++)
      expect((await o.owner.post(`/orgs/${o.org}/policies`, { name: `policy ${i}` })).status).toBe(201);
    const before = await snapshot();

    await db.pool.query("update organizations set plan = null where id = $1", [o.org]);
    expect((await o.owner.get(`/orgs/${o.org}`)).body.organization.plan).toBe("developer");
    // Nothing was deleted or disabled by the change.
    expect(await snapshot()).toEqual(before);
    const listed = await o.owner.get(`/orgs/${o.org}/agents?limit=100`);
    expect(listed.body.items.map((a: { id: string }) => a.id).sort()).toEqual([...agents].sort());
    expect(listed.body.items.every((a: { status: string }) => a.status === "active")).toBe(true);
    const keys = await o.owner.get(`/orgs/${o.org}/api-keys?limit=100`);
    expect(keys.body.items).toHaveLength(6);
    expect(keys.body.items.every((k: { state: string }) => k.state === "active")).toBe(true);
    // Every key still authenticates at the Gateway's key check.
    for (const secret of secrets)
      expect((await authenticateKey(db.pool, api.keyHashSecret, secret, "gateway")).ok).toBe(true);
    expect((await o.owner.get(`/orgs/${o.org}/policies?limit=100`)).body.items).toHaveLength(6);
    const members = await o.owner.get(`/orgs/${o.org}/members`);
    expect(members.body.items.map((m: { role: string }) => m.role).sort()).toEqual(["admin", "owner"]);
    // The admin still acts as admin, and existing items can still be changed.
    expect((await admin.b.get(`/orgs/${o.org}/invitations`)).status).toBe(200);
    expect((await o.owner.patch(`/orgs/${o.org}/agents/${agents[0]}`, { name: "renamed" })).status).toBe(200);

    // New items over the smaller plan's quotas: 402, nothing created.
    await refusedUnchanged(
      () => o.owner.post(`/orgs/${o.org}/agents`, { name: "seventh" }),
      402,
      "PLAN_LIMIT_EXCEEDED",
    );
    await refusedUnchanged(
      () =>
        o.owner.post(`/orgs/${o.org}/api-keys`, { name: "seventh", kind: "gateway", agent_id: agents[0] }),
      402,
      "PLAN_LIMIT_EXCEEDED",
    );
    await refusedUnchanged(
      () => o.owner.post(`/orgs/${o.org}/policies`, { name: "seventh" }),
      402,
      "PLAN_LIMIT_EXCEEDED",
    );
    await refusedUnchanged(
      () =>
        o.owner.post(`/orgs/${o.org}/invitations`, {
          email: `late-${Date.now()}@example.test`,
          role: "viewer",
        }),
      402,
      "PLAN_LIMIT_EXCEEDED",
    );
  });
});
