/**
 * SPEC 7.3 `denied` ENGINE_REFUSED: the evidence workflow (service/task-approval@0.1) refuses the
 * delegation the call's TASK would rely on, by the rule the offline verifier applies
 * (protocol's checkDelegation). The case met in practice: a delegation signed in a browser whose
 * clock runs ahead, which the Cloud API admits within its 60 s skew, relied on by a call made
 * before its `issued_at`; its receipt could never verify. The call is recorded as denied (no
 * receipt, nothing to retry), and a delegation the workflow accepts is preferred when there is one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import {
  createActivePolicy,
  createAuthorizationWorld,
  createDelegation,
  createGatewayKey,
  refundPolicy,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { createAgent } from "../fixtures/organization.js";
import { recorded, startTestGateway, type TestGateway } from "./harness.js";

let db: TestDatabase;
let gw: TestGateway;
let world: AuthorizationWorld;

beforeAll(async () => {
  db = await createTestDatabase();
  gw = await startTestGateway(db);
  world = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
});
afterAll(async () => {
  await gw?.close();
  await db?.drop();
});

/** An agent of the world's organization with the refund policy and the given delegations' issue times. */
async function agentWithDelegations(issuedAt: Date[]) {
  const agentId = await createAgent(db.pool, world.organizationId);
  for (const at of issuedAt)
    await createDelegation(db.pool, world.organizationId, agentId, world.principal, { issuedAt: at });
  await createActivePolicy(db.pool, world.organizationId, refundPolicy, { agentId });
  return (await createGatewayKey(db.pool, gw.keyHashSecret, world.organizationId, agentId, world.ownerId))
    .key;
}

describe("ENGINE_REFUSED", () => {
  it("denies a call whose only delegation is issued after it, records it as denied without a receipt", async () => {
    const key = await agentWithDelegations([new Date(Date.now() + 45_000)]);
    const before = await recorded(db.pool, world.organizationId);
    const res = await gw.authorize(key, { tool: world.tool, arguments: { order: "e-1", amount: 20 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ allowed: false, status: "denied", code: "ENGINE_REFUSED" });
    expect(res.body.detail).toContain("DELEGATION_INVALID");
    const after = await recorded(db.pool, world.organizationId);
    expect({ actions: after.actions - before.actions, receipts: after.receipts - before.receipts }).toEqual({
      actions: 1,
      receipts: 0,
    });
    const { rows } = await db.pool.query(
      "select status, decision_code from protected_actions where id = $1",
      [res.body.protected_action_id],
    );
    expect(rows[0]).toEqual({ status: "denied", decision_code: "ENGINE_REFUSED" });
  });

  it("relies on a delegation the workflow accepts when the agent also holds one it refuses", async () => {
    const key = await agentWithDelegations([new Date(Date.now() + 45_000), new Date(Date.now() - 60_000)]);
    const res = await gw.authorize(key, { tool: world.tool, arguments: { order: "e-2", amount: 20 } });
    expect(res.body).toMatchObject({ allowed: true, status: "authorized" });
  });
});
