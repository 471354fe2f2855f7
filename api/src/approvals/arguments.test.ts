/**
 * The held call's arguments on its approval request (docs/dashboard.md "Approvals"): kept as the
 * RFC 8785 text the TASK's arguments_digest covers, answered by GET .../approvals/<id> to a
 * signed-in person whose role may decide the request, and to no one else (a viewer, a developer,
 * a management key, the list). Real Gateway, real Cloud API, real PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { markEvidenceDeleted } from "@countersign/core/actions";
import { insertApiKey } from "@countersign/core/keys";
import { sha256Digest } from "@countersign/protocol/canonical";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { Browser, randomIp, startCloudApi, type CloudApi } from "../../../test/fixtures/cloud-api.js";
import { createAuthorizationWorld, type AuthorizationWorld } from "../../../test/fixtures/authorization.js";
import { startTestGateway, type TestGateway } from "../../../test/gateway/harness.js";

let db: TestDatabase;
let api: CloudApi;
let gw: TestGateway;

beforeAll(async () => {
  db = await createTestDatabase();
  gw = await startTestGateway(db, { defaultPlan: "enterprise" });
  api = await startCloudApi(db, { defaultPlan: "enterprise", extra: { keyHashSecret: gw.keyHashSecret } });
});
afterAll(async () => {
  await api?.close();
  await gw?.close();
  await db?.drop();
});

/** A person signed in, a member of the world's organization with `role`. */
async function member(w: AuthorizationWorld, role: string): Promise<Browser> {
  const b = api.browser();
  const { userId } = await b.signUpAndIn(api.smtp);
  await db.pool.query("insert into memberships (organization_id, user_id, role) values ($1, $2, $3)", [
    w.organizationId,
    userId,
    role,
  ]);
  return b;
}

describe("a held call's arguments", () => {
  it("are answered to a person who may decide the request, exactly as signed, and to no one else", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    const args = { amount: 500, order: "ord_1002", customer: { id: "c-7", note: 'a "quoted", long note' } };
    const held = await gw.authorize(w.key, { tool: w.tool, arguments: args, idempotency_key: "r-1" });
    expect(held.body).toMatchObject({ status: "approval_pending" });
    const path = `/orgs/${w.organizationId}/approvals/${held.body.approval_request_id}`;

    const admin = await member(w, "admin");
    const seen = await admin.get(path);
    expect(seen.status, seen.text).toBe(200);
    const text: string = seen.body.approval.arguments;
    // RFC 8785 text: keys sorted, no whitespace; its digest is the one the Gateway signed.
    expect(text).toBe(
      '{"amount":500,"customer":{"id":"c-7","note":"a \\"quoted\\", long note"},"order":"ord_1002"}',
    );
    expect(sha256Digest(text)).toBe(seen.body.approval.proposal.body.payload.call.arguments_digest);
    expect(JSON.parse(text)).toEqual(args);

    // People who do not decide it, keys, and the list never carry them.
    for (const role of ["viewer", "developer", "approver"]) {
      const other = await (await member(w, role)).get(path);
      expect(other.status, other.text).toBe(200);
      expect(other.body.approval.arguments).toBeNull();
    }
    const k = await insertApiKey(db.pool, gw.keyHashSecret, {
      organizationId: w.organizationId,
      kind: "management",
      environment: "live",
      name: "reader",
      scopes: ["read", "approvals:read"],
      createdBy: w.ownerId,
    });
    const byKey = await new Browser(api.base, randomIp(), null).get(path, {
      authorization: `Bearer ${k.key}`,
    });
    expect(byKey.status, byKey.text).toBe(200);
    expect(byKey.body.approval.arguments).toBeNull();
    const list = await admin.get(`/orgs/${w.organizationId}/approvals?status=pending`);
    expect(list.body.items).toHaveLength(1);
    expect(list.body.items[0]).not.toHaveProperty("arguments");

    // Another organization's person does not reach the request at all.
    const stranger = api.browser();
    await stranger.signUpAndIn(api.smtp);
    expect((await stranger.get(path)).status).toBe(404);
  });

  it("are kept only for held calls, and cleared by retention with the ended action's call data", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    const allowed = await gw.authorize(w.key, { tool: w.tool, arguments: { amount: 5 } });
    expect(allowed.body).toMatchObject({ status: "authorized" });
    const denied = await gw.authorize(w.key, { tool: w.tool, arguments: { amount: 50000 } });
    expect(denied.body).toMatchObject({ status: "denied" });
    const { rows } = await db.pool.query(
      "select count(*)::int as n from protected_actions where organization_id = $1 and arguments is not null",
      [w.organizationId],
    );
    expect(rows[0].n).toBe(0);

    const held = await gw.authorize(w.key, { tool: w.tool, arguments: { amount: 500, order: "r-9" } });
    const kept = () =>
      db.pool.query("select arguments from protected_actions where id = $1", [held.body.protected_action_id]);
    expect((await kept()).rows[0].arguments).toBe('{"amount":500,"order":"r-9"}');
    // Open, retention leaves it; ended (expired here), its arguments go with the rest of its call data.
    expect(await markEvidenceDeleted(db.pool, [held.body.protected_action_id], new Date())).toBe(0);
    await db.pool.query("update protected_actions set status = 'expired' where id = $1", [
      held.body.protected_action_id,
    ]);
    expect(await markEvidenceDeleted(db.pool, [held.body.protected_action_id], new Date())).toBe(1);
    expect((await kept()).rows[0].arguments).toBeNull();
  });
});
