/**
 * SPEC 6.4 with 5.4: the service disables the webhook endpoints a person
 * created when they are removed, leave, get a role that cannot manage
 * webhooks, or delete their account (DELETE /me), audited as
 * `webhook.updated` with the reason, in the same transaction as the change.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "../fixtures/cloud-api.js";
import { startWebhookHarness, type WebhookHarness } from "./harness.js";

let h: WebhookHarness;

beforeAll(async () => {
  h = await startWebhookHarness({ allowLoopbackUrls: false });
  h.resolver.answers["public.test"] = ["93.184.216.34"];
});
afterAll(async () => {
  await h.close();
});

/** A second person, signed in, made a member of `org` with `role`. */
async function member(org: string, role: string): Promise<{ b: Browser; userId: string; password: string }> {
  const b = h.api.browser();
  const { userId, password } = await b.signUpAndIn(h.api.smtp);
  await h.db.pool.query("insert into memberships (organization_id, user_id, role) values ($1, $2, $3)", [
    org,
    userId,
    role,
  ]);
  return { b, userId, password };
}

async function endpointState(id: string) {
  const { rows } = await h.db.pool.query<{ enabled: boolean; disabled_reason: string | null }>(
    "select enabled, disabled_reason from webhook_endpoints where id = $1",
    [id],
  );
  return rows[0];
}

async function serviceAudits(id: string) {
  const { rows } = await h.db.pool.query(
    "select actor_type, details from audit_log where target_id = $1 and action = 'webhook.updated' order by created_at",
    [id],
  );
  return rows;
}

describe("endpoints of a departing creator", () => {
  it("are disabled when the creator gets a role that cannot manage webhooks, not when promoted", async () => {
    const org = await h.newOrganization();
    const dev = await member(org, "developer");
    const toViewer = await h.createEndpoint("https://public.test/v", undefined, dev.b, org);
    const ownerMade = await h.createEndpoint("https://public.test/o", undefined, h.owner, org);
    expect((await h.owner.patch(`/orgs/${org}/members/${dev.userId}`, { role: "admin" })).status).toBe(200);
    expect(await endpointState(toViewer.id)).toEqual({ enabled: true, disabled_reason: null });
    expect((await h.owner.patch(`/orgs/${org}/members/${dev.userId}`, { role: "viewer" })).status).toBe(200);
    expect(await endpointState(toViewer.id)).toEqual({
      enabled: false,
      disabled_reason: "creator_lost_role",
    });
    expect(await serviceAudits(toViewer.id)).toEqual([
      {
        actor_type: "service",
        details: { enabled: false, reason: "creator_lost_role", creator_id: dev.userId },
      },
    ]);
    expect(await endpointState(ownerMade.id)).toEqual({ enabled: true, disabled_reason: null });
    // The endpoint shows why, and a Writer may enable it again.
    const read = await h.owner.get(`/orgs/${org}/webhooks/${toViewer.id}`);
    expect(read.body.webhook).toMatchObject({ enabled: false, disabled_reason: "creator_lost_role" });
    const enabled = await h.owner.patch(`/orgs/${org}/webhooks/${toViewer.id}`, { enabled: true });
    expect(enabled.body.webhook).toMatchObject({ enabled: true, disabled_reason: null });
  });

  it("are disabled when the creator becomes an approver", async () => {
    const org = await h.newOrganization();
    const dev = await member(org, "developer");
    const e = await h.createEndpoint("https://public.test/a", undefined, dev.b, org);
    await h.owner.patch(`/orgs/${org}/members/${dev.userId}`, { role: "approver" });
    expect(await endpointState(e.id)).toEqual({ enabled: false, disabled_reason: "creator_lost_role" });
  });

  it("are disabled when the creator is removed or leaves, in that organization only", async () => {
    const org = await h.newOrganization();
    const elsewhere = await h.newOrganization();
    const removed = await member(org, "developer");
    await h.db.pool.query(
      "insert into memberships (organization_id, user_id, role) values ($1, $2, 'developer')",
      [elsewhere, removed.userId],
    );
    const e = await h.createEndpoint("https://public.test/r", undefined, removed.b, org);
    const kept = await h.createEndpoint("https://public.test/k", undefined, removed.b, elsewhere);
    expect((await h.owner.delete(`/orgs/${org}/members/${removed.userId}`)).status).toBe(204);
    expect(await endpointState(e.id)).toEqual({ enabled: false, disabled_reason: "creator_removed" });
    expect(await endpointState(kept.id)).toEqual({ enabled: true, disabled_reason: null });

    const leaver = await member(org, "admin");
    const l = await h.createEndpoint("https://public.test/l", undefined, leaver.b, org);
    expect((await leaver.b.delete(`/orgs/${org}/members/${leaver.userId}`)).status).toBe(204);
    expect(await endpointState(l.id)).toEqual({ enabled: false, disabled_reason: "creator_left" });
    expect((await serviceAudits(l.id))[0].details).toMatchObject({ reason: "creator_left" });
  });

  it("new events queue no delivery for a disabled endpoint", async () => {
    const org = await h.newOrganization();
    const dev = await member(org, "developer");
    const e = await h.createEndpoint("https://public.test/q", ["policy.activated"], dev.b, org);
    await h.owner.patch(`/orgs/${org}/members/${dev.userId}`, { role: "viewer" });
    await h.emit("policy.activated", {}, org);
    expect((await h.owner.get(`/orgs/${org}/webhooks/${e.id}/deliveries`)).body.items).toHaveLength(0);
  });
});

describe("DELETE /me", () => {
  it("refuses a wrong password and the last owner of an organization, changing nothing", async () => {
    const person = h.api.browser();
    const { password, userId } = await person.signUpAndIn(h.api.smtp);
    const own = await h.newOrganization(person);
    const e = await h.createEndpoint("https://public.test/own", undefined, person, own);

    const wrong = await person.request("DELETE", "/me", { current_password: "not the password!" });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.code).toBe("INVALID_CURRENT_PASSWORD");

    const last = await person.request("DELETE", "/me", { current_password: password });
    expect(last.status).toBe(409);
    expect(last.body.error.code).toBe("LAST_OWNER");
    expect(last.body.error.details).toEqual({ organization_id: own });

    const { rows } = await h.db.pool.query("select deleted_at from users where id = $1", [userId]);
    expect(rows[0].deleted_at).toBeNull();
    expect(await endpointState(e.id)).toEqual({ enabled: true, disabled_reason: null });
    expect((await person.get("/auth/session")).status).toBe(200);
    expect(
      (
        await h.db.pool.query("select 1 from audit_log where action = 'account.deleted' and target_id = $1", [
          userId,
        ])
      ).rows,
    ).toHaveLength(0);
  });

  it("deletes the account, ends its sessions, and disables its endpoints and revokes its keys everywhere", async () => {
    const orgA = await h.newOrganization();
    const orgB = await h.newOrganization();
    const p = await member(orgA, "developer");
    await h.db.pool.query(
      "insert into memberships (organization_id, user_id, role) values ($1, $2, 'owner')",
      [orgB, p.userId],
    );
    const second = h.api.browser();
    await second.post("/auth/signin", {
      email: (await h.db.pool.query("select email from users where id = $1", [p.userId])).rows[0].email,
      password: p.password,
    });
    const a = await h.createEndpoint("https://public.test/da", undefined, p.b, orgA);
    const b = await h.createEndpoint("https://public.test/db", undefined, p.b, orgB);
    const key = await p.b.post(`/orgs/${orgB}/api-keys`, { name: "k", kind: "management", scopes: ["read"] });
    expect(key.status).toBe(201);

    const res = await p.b.request("DELETE", "/me", { current_password: p.password });
    expect(res.status).toBe(204);
    expect(await endpointState(a.id)).toEqual({ enabled: false, disabled_reason: "creator_deleted" });
    expect(await endpointState(b.id)).toEqual({ enabled: false, disabled_reason: "creator_deleted" });
    expect((await serviceAudits(b.id))[0]).toEqual({
      actor_type: "service",
      details: { enabled: false, reason: "creator_deleted", creator_id: p.userId },
    });
    const k = await h.db.pool.query("select revoked_reason from api_keys where id = $1", [
      key.body.api_key.id,
    ]);
    expect(k.rows[0].revoked_reason).toBe("creator_deleted");
    expect((await p.b.get("/auth/session")).status).toBe(401);
    expect((await second.get("/auth/session")).status).toBe(401);
    expect(
      (await h.db.pool.query("select 1 from memberships where user_id = $1", [p.userId])).rows,
    ).toHaveLength(0);
    expect(
      (await h.db.pool.query("select 1 from sessions where user_id = $1", [p.userId])).rows,
    ).toHaveLength(0);
  });
});
