/**
 * Agents through the real server (SPEC 2.2, 4.4, 8.6): create, list, read,
 * rename, disable, switch policy (Admins signed in), NAME_TAKEN, plan limit
 * on the Developer plan, and that every refusal writes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticateKey } from "@countersign/core/keys";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { startCloudApi, type CloudApi } from "../../../test/fixtures/cloud-api.js";
import {
  addMember,
  createPolicy,
  expectRefusedUnchanged,
  managementKey,
  orgWithOwner,
} from "../../../test/fixtures/configuration.js";

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

describe("agents", () => {
  it("creates, lists, reads and renames agents, and audits each change", async () => {
    const o = await orgWithOwner(api);
    const res = await o.owner.post(`/orgs/${o.org}/agents`, { name: "billing bot" });
    expect(res.status).toBe(201);
    expect(res.body.agent).toMatchObject({ name: "billing bot", status: "active", policy: null });
    const id = res.body.agent.id;
    await o.owner.post(`/orgs/${o.org}/agents`, { name: "second" });
    const list = await o.owner.get(`/orgs/${o.org}/agents?limit=1`);
    expect(list.body.items.map((a: { name: string }) => a.name)).toEqual(["second"]);
    const next = await o.owner.get(`/orgs/${o.org}/agents?limit=1&cursor=${list.body.next_cursor}`);
    expect(next.body).toMatchObject({ items: [{ name: "billing bot" }], next_cursor: null });
    expect((await o.owner.get(`/orgs/${o.org}/agents/${id}`)).body.agent.name).toBe("billing bot");
    const renamed = await o.owner.patch(`/orgs/${o.org}/agents/${id}`, {
      name: "payments bot",
      status: "disabled",
    });
    expect(renamed.body.agent).toMatchObject({ name: "payments bot", status: "disabled" });
    const audit = await db.pool.query("select action from audit_log where target_id = $1 order by id", [id]);
    expect(audit.rows.map((r) => r.action)).toEqual(["agent.created", "agent.updated", "agent.disabled"]);
  });

  it("refuses names that are taken, empty, too long or multi-line, and changes nothing", async () => {
    const o = await orgWithOwner(api);
    const a = (await o.owner.post(`/orgs/${o.org}/agents`, { name: "taken" })).body.agent;
    const b = (await o.owner.post(`/orgs/${o.org}/agents`, { name: "other" })).body.agent;
    await expectRefusedUnchanged(
      db.pool,
      () => o.owner.post(`/orgs/${o.org}/agents`, { name: "taken" }),
      409,
      "NAME_TAKEN",
    );
    await expectRefusedUnchanged(
      db.pool,
      () => o.owner.patch(`/orgs/${o.org}/agents/${b.id}`, { name: "taken" }),
      409,
      "NAME_TAKEN",
    );
    for (const name of ["", "x".repeat(201), "two\nlines", "tab\there"]) {
      await expectRefusedUnchanged(
        db.pool,
        () => o.owner.post(`/orgs/${o.org}/agents`, { name }),
        400,
        "VALIDATION_FAILED",
      );
    }
    await expectRefusedUnchanged(
      db.pool,
      () => o.owner.post(`/orgs/${o.org}/agents`, { name: "ok", colour: "red" }),
      400,
      "VALIDATION_FAILED",
    );
    await expectRefusedUnchanged(
      db.pool,
      () => o.owner.patch(`/orgs/${o.org}/agents/${a.id}`, { status: "paused" }),
      400,
      "VALIDATION_FAILED",
    );
    await expectRefusedUnchanged(
      db.pool,
      () => o.owner.get(`/orgs/${o.org}/agents/not-a-uuid`),
      404,
      "NOT_FOUND",
    );
    // another organization's agent is not found
    const other = await orgWithOwner(api);
    await expectRefusedUnchanged(
      db.pool,
      () => other.owner.patch(`/orgs/${other.org}/agents/${a.id}`, { name: "mine" }),
      404,
      "NOT_FOUND",
    );
    // a name freed by a rename can be used again
    expect((await o.owner.patch(`/orgs/${o.org}/agents/${a.id}`, { name: "renamed" })).status).toBe(200);
    expect((await o.owner.post(`/orgs/${o.org}/agents`, { name: "taken" })).status).toBe(201);
  });

  it("lets only an admin signed in assign or switch the policy (ADMIN_REQUIRED), and checks the policy exists", async () => {
    const o = await orgWithOwner(api);
    const p1 = await createPolicy(db.pool, o.org);
    const p2 = await createPolicy(db.pool, o.org);
    const agent = (await o.owner.post(`/orgs/${o.org}/agents`, { name: "a", policy_id: p1 })).body.agent;
    expect(agent.policy.id).toBe(p1);
    const dev = await addMember(api, o, "developer");
    const key = await managementKey(api, o, ["agents:write"]);
    await expectRefusedUnchanged(
      db.pool,
      () => dev.b.patch(`/orgs/${o.org}/agents/${agent.id}`, { policy_id: p2 }),
      403,
      "ADMIN_REQUIRED",
    );
    await expectRefusedUnchanged(
      db.pool,
      () => key("PATCH", `/orgs/${o.org}/agents/${agent.id}`, { policy_id: p2, name: "x" }),
      403,
      "ADMIN_REQUIRED",
    );
    await expectRefusedUnchanged(
      db.pool,
      () => key("POST", `/orgs/${o.org}/agents`, { name: "k", policy_id: p2 }),
      403,
      "ADMIN_REQUIRED",
    );
    await expectRefusedUnchanged(
      db.pool,
      () => dev.b.patch(`/orgs/${o.org}/agents/${agent.id}`, { policy_id: null }),
      403,
      "ADMIN_REQUIRED",
    );
    // a developer and a key may still rename and disable, and send the current policy unchanged
    expect(
      (await dev.b.patch(`/orgs/${o.org}/agents/${agent.id}`, { name: "dev named", policy_id: p1 })).status,
    ).toBe(200);
    expect(
      (await key("PATCH", `/orgs/${o.org}/agents/${agent.id}`, { status: "disabled" })).body.agent.status,
    ).toBe("disabled");
    expect((await key("POST", `/orgs/${o.org}/agents`, { name: "by key" })).status).toBe(201);
    // an admin switches it; a policy of another organization is refused
    const other = await orgWithOwner(api);
    const foreign = await createPolicy(db.pool, other.org);
    await expectRefusedUnchanged(
      db.pool,
      () => o.owner.patch(`/orgs/${o.org}/agents/${agent.id}`, { policy_id: foreign }),
      422,
      "POLICY_NOT_FOUND",
    );
    const admin = await addMember(api, o, "admin");
    const sw = await admin.b.patch(`/orgs/${o.org}/agents/${agent.id}`, { policy_id: p2 });
    expect(sw.body.agent.policy.id).toBe(p2);
    const audit = await db.pool.query(
      "select details from audit_log where target_id = $1 and action = 'agent.policy_switched'",
      [agent.id],
    );
    expect(audit.rows).toEqual([{ details: { from_policy_id: p1, to_policy_id: p2 } }]);
  });

  it("stops at the Developer plan's 5 agents with 402 PLAN_LIMIT_EXCEEDED", async () => {
    const o = await orgWithOwner(api, { plan: "developer", db: db.pool });
    for (let i = 0; i < 5; i++)
      expect((await o.owner.post(`/orgs/${o.org}/agents`, { name: `a${i}` })).status).toBe(201);
    await expectRefusedUnchanged(
      db.pool,
      () => o.owner.post(`/orgs/${o.org}/agents`, { name: "sixth" }),
      402,
      "PLAN_LIMIT_EXCEEDED",
    );
    // existing agents still change
    const first = (await o.owner.get(`/orgs/${o.org}/agents?limit=1`)).body.items[0];
    expect((await o.owner.patch(`/orgs/${o.org}/agents/${first.id}`, { status: "disabled" })).status).toBe(
      200,
    );
  });

  it("disabling an agent stops its gateway keys on their next request", async () => {
    const o = await orgWithOwner(api);
    const agent = (await o.owner.post(`/orgs/${o.org}/agents`, { name: "keyed" })).body.agent;
    const key = (
      await o.owner.post(`/orgs/${o.org}/api-keys`, { name: "gw", kind: "gateway", agent_id: agent.id })
    ).body.secret;
    expect((await authenticateKey(db.pool, api.keyHashSecret, key, "gateway")).ok).toBe(true);
    await o.owner.patch(`/orgs/${o.org}/agents/${agent.id}`, { status: "disabled" });
    expect((await authenticateKey(db.pool, api.keyHashSecret, key, "gateway")).ok).toBe(false);
    await o.owner.patch(`/orgs/${o.org}/agents/${agent.id}`, { status: "active" });
    expect((await authenticateKey(db.pool, api.keyHashSecret, key, "gateway")).ok).toBe(true);
  });

  it("lets viewers and read keys read but not write", async () => {
    const o = await orgWithOwner(api);
    const agent = (await o.owner.post(`/orgs/${o.org}/agents`, { name: "r" })).body.agent;
    const viewer = await addMember(api, o, "viewer");
    const read = await managementKey(api, o, ["read"]);
    expect((await viewer.b.get(`/orgs/${o.org}/agents/${agent.id}`)).status).toBe(200);
    expect((await read("GET", `/orgs/${o.org}/agents`)).body.items).toHaveLength(1);
    await expectRefusedUnchanged(
      db.pool,
      () => viewer.b.post(`/orgs/${o.org}/agents`, { name: "v" }),
      403,
      "FORBIDDEN",
    );
    const res = await expectRefusedUnchanged(
      db.pool,
      () => read("POST", `/orgs/${o.org}/agents`, { name: "v" }),
      403,
      "FORBIDDEN",
    );
    expect(res.body.error.details.required_scope).toBe("agents:write");
  });
});
