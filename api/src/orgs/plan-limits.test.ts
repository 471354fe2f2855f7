/**
 * Plan limits as SPEC 8.6 counts them (issue 44), through the real Cloud API
 * on PostgreSQL: only what still holds room counts (agents not disabled, keys
 * not revoked), so removing an agent (disabling it: the Cloud API has no agent
 * deletion, and the operator disables the agent of a deleted Agent resource)
 * frees room for a new one; enabling takes room as creating does; a refusal
 * names the limit by its wire name and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { startCloudApi, type CloudApi } from "../../../test/fixtures/cloud-api.js";
import { expectRefusedUnchanged, orgWithOwner } from "../../../test/fixtures/configuration.js";

let db: TestDatabase;
let api: CloudApi;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startCloudApi(db, { defaultPlan: "developer" });
});
afterAll(async () => {
  await api?.close();
  await db?.drop();
});

describe("plan limits count what still holds room", () => {
  it("a disabled agent frees room for a new one; enabling it again at the limit is refused and changes nothing", async () => {
    const o = await orgWithOwner(api);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await o.owner.post(`/orgs/${o.org}/agents`, { name: `bot-${i}` });
      expect(res.status).toBe(201);
      ids.push(res.body.agent.id as string);
    }
    const full = await expectRefusedUnchanged(
      db.pool,
      () => o.owner.post(`/orgs/${o.org}/agents`, { name: "sixth" }),
      402,
      "PLAN_LIMIT_EXCEEDED",
    );
    expect(full.body.error.details).toEqual({ limit: "agents", plan: "developer", quota: 5 });
    expect(full.body.error.message).toBe("the developer plan allows 5 agents that are not disabled");

    // Four removed (as the operator removes the agents of deleted Agent resources): four new ones fit.
    for (const id of ids.slice(0, 4))
      expect((await o.owner.patch(`/orgs/${o.org}/agents/${id}`, { status: "disabled" })).status).toBe(200);
    for (let i = 0; i < 4; i++)
      expect((await o.owner.post(`/orgs/${o.org}/agents`, { name: `new-${i}` })).status).toBe(201);
    // A disabled agent can still be created (it holds no room); the limit holds for active ones.
    expect((await o.owner.post(`/orgs/${o.org}/agents`, { name: "parked", status: "disabled" })).status).toBe(
      201,
    );
    await expectRefusedUnchanged(
      db.pool,
      () => o.owner.post(`/orgs/${o.org}/agents`, { name: "one-too-many" }),
      402,
      "PLAN_LIMIT_EXCEEDED",
    );
    const enable = await expectRefusedUnchanged(
      db.pool,
      () => o.owner.patch(`/orgs/${o.org}/agents/${ids[0]}`, { status: "active" }),
      402,
      "PLAN_LIMIT_EXCEEDED",
    );
    expect(enable.body.error.details.limit).toBe("agents");
    // Renaming a disabled agent takes no room, and usage counts as the limit does.
    expect((await o.owner.patch(`/orgs/${o.org}/agents/${ids[0]}`, { name: "old-bot-0" })).status).toBe(200);
    const usage = await o.owner.get(`/orgs/${o.org}/usage`);
    expect(usage.body.agents).toEqual({ used: 5, limit: 5 });

    // Room made again: the agent comes back.
    expect((await o.owner.patch(`/orgs/${o.org}/agents/${ids[4]}`, { status: "disabled" })).status).toBe(200);
    expect((await o.owner.patch(`/orgs/${o.org}/agents/${ids[0]}`, { status: "active" })).status).toBe(200);
  });

  it("the API key limit counts keys not revoked and names itself api_keys", async () => {
    const o = await orgWithOwner(api);
    const keys: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await o.owner.post(`/orgs/${o.org}/api-keys`, {
        name: `k${i}`,
        kind: "management",
        scopes: ["read"],
      });
      expect(res.status).toBe(201);
      keys.push(res.body.api_key.id as string);
    }
    const refused = await expectRefusedUnchanged(
      db.pool,
      () => o.owner.post(`/orgs/${o.org}/api-keys`, { name: "k5", kind: "management", scopes: ["read"] }),
      402,
      "PLAN_LIMIT_EXCEEDED",
    );
    expect(refused.body.error.details).toEqual({ limit: "api_keys", plan: "developer", quota: 5 });
    expect(refused.body.error.message).toBe("the developer plan allows 5 API keys that are not revoked");
    expect(JSON.stringify(refused.body)).not.toContain("apiKeys");
    expect((await o.owner.post(`/orgs/${o.org}/api-keys/${keys[0]}/revoke`, {})).status).toBe(200);
    const again = await o.owner.post(`/orgs/${o.org}/api-keys`, {
      name: "k5",
      kind: "management",
      scopes: ["read"],
    });
    expect(again.status).toBe(201);
  });
});
