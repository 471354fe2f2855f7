/**
 * Calls no one can approve, made visible (GET .../policy-status `unapprovable`, the dry run's
 * `members_with_role`), and what happens to calls decided before an approver bound a personal key:
 * a call refused NO_APPROVERS is a final denial (SPEC 3.2, 7.3 "do not retry"), so asking again with
 * the same idempotency key answers that recorded denial; the same call asked again as a new
 * decision (a new key) after the binding is held for the new approver. Real Gateway, real Cloud
 * API, real PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertApiKey } from "@countersign/core/keys";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { Browser, randomIp, startCloudApi, type CloudApi } from "../../../test/fixtures/cloud-api.js";
import {
  bindPersonalIdentity,
  createAuthorizationWorld,
  type AuthorizationWorld,
} from "../../../test/fixtures/authorization.js";
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

/** A read-scoped management key of the world's organization, as the operator or a script reads. */
async function reader(world: AuthorizationWorld) {
  const k = await insertApiKey(db.pool, gw.keyHashSecret, {
    organizationId: world.organizationId,
    kind: "management",
    environment: "live",
    name: "reader",
    scopes: ["read"],
    createdBy: world.ownerId,
  });
  const b = new Browser(api.base, randomIp(), null);
  const auth = { authorization: `Bearer ${k.key}` };
  return {
    status: async () => {
      const res = await b.get(`/orgs/${world.organizationId}/policy-status`, auth);
      expect(res.status, res.text).toBe(200);
      return res.body.items.find((i: { policy_id: string }) => i.policy_id === world.policyId);
    },
    dryRun: (amount: number) =>
      b.request(
        "POST",
        `/orgs/${world.organizationId}/agents/${world.agentId}/dry-run`,
        { tool: world.tool, arguments: { amount } },
        auth,
      ),
  };
}

const refund = (w: AuthorizationWorld, key: string) =>
  gw.authorize(w.key, { tool: w.tool, arguments: { amount: 500 }, idempotency_key: key });

describe("calls no one can approve", () => {
  it("are shown on the policy status and the dry run with who could fix it, and disappear once an owner binds a key", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    const read = await reader(w);
    // As the world comes: the admin holds a key, so rule needs-approval has an approver.
    expect((await read.status()).unapprovable).toEqual([]);

    await db.pool.query("delete from identities where user_id = $1", [w.approver.userId]);
    const status = await read.status();
    expect(status).toMatchObject({ stage: "enforce", draft_version: null });
    // The owner and the admin hold the roles: the fix is a personal key, not an invitation.
    expect(status.unapprovable).toEqual([
      {
        version_id: w.versionId,
        rule_id: "needs-approval",
        roles: ["owner", "admin"],
        approver_count: 1,
        code: "NO_APPROVERS",
        members_with_role: 2,
      },
    ]);
    const dry = await read.dryRun(500);
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.dry_run.approvers).toMatchObject({
      resolved: false,
      code: "NO_APPROVERS",
      members_with_role: 2,
    });
    expect(dry.body.dry_run.agent_would_receive.body).toMatchObject({ code: "NO_APPROVERS" });

    await bindPersonalIdentity(db.pool, w.organizationId, w.ownerId);
    expect((await read.status()).unapprovable).toEqual([]);
    expect((await read.dryRun(500)).body.dry_run.approvers).toMatchObject({ resolved: true, members: 1 });
  });

  it("a call denied NO_APPROVERS before the key was bound stays denied under its idempotency key; asked again as a new decision it is held for the new approver", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    await db.pool.query("delete from identities where user_id = $1", [w.approver.userId]);
    const before = await refund(w, "refund-1");
    expect(before.body).toMatchObject({ allowed: false, status: "denied", code: "NO_APPROVERS" });

    const owner = await bindPersonalIdentity(db.pool, w.organizationId, w.ownerId);
    const replay = await refund(w, "refund-1");
    expect(replay.body).toMatchObject({ status: "denied", code: "NO_APPROVERS" });
    expect(replay.body.protected_action_id).toBe(before.body.protected_action_id);
    const { rows } = await db.pool.query(
      "select count(*)::int as n from approval_requests ar join protected_actions pa on pa.id = ar.protected_action_id where pa.organization_id = $1",
      [w.organizationId],
    );
    expect(rows[0].n).toBe(0);

    const again = await refund(w, "refund-1-again");
    expect(again.body).toMatchObject({ allowed: false, status: "approval_pending" });
    const request = await db.pool.query<{ approver_kids: string[] }>(
      "select approver_kids from approval_requests where id = $1",
      [again.body.approval_request_id],
    );
    expect(request.rows[0]!.approver_kids).toEqual([owner.kid]);
  });

  it("a pending request whose approver keys are all unbound is shown as one no one can decide; a key bound later does not count for it", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    const k = await insertApiKey(db.pool, gw.keyHashSecret, {
      organizationId: w.organizationId,
      kind: "management",
      environment: "live",
      name: "reader",
      scopes: ["read", "approvals:read"],
      createdBy: w.ownerId,
    });
    const b = new Browser(api.base, randomIp(), null);
    const read = async (id: string) => {
      const res = await b.get(`/orgs/${w.organizationId}/approvals/${id}`, {
        authorization: `Bearer ${k.key}`,
      });
      expect(res.status, res.text).toBe(200);
      return res.body.approval;
    };
    const held = await refund(w, "held-1");
    expect(held.body).toMatchObject({ status: "approval_pending" });
    expect(await read(held.body.approval_request_id)).toMatchObject({
      approver_kids: [w.approver.signer.kid],
      approvers_left: 1,
    });

    await db.pool.query("update identities set status = 'revoked' where kid = $1", [w.approver.signer.kid]);
    expect((await read(held.body.approval_request_id)).approvers_left).toBe(0);
    await bindPersonalIdentity(db.pool, w.organizationId, w.ownerId);
    expect((await read(held.body.approval_request_id)).approvers_left).toBe(0);
    const list = await b.get(`/orgs/${w.organizationId}/approvals?status=pending`, {
      authorization: `Bearer ${k.key}`,
    });
    expect(list.body.items.map((a: { approvers_left: number }) => a.approvers_left)).toEqual([0]);
    const again = await refund(w, "held-2");
    expect(again.body).toMatchObject({ status: "approval_pending" });
    expect((await read(again.body.approval_request_id)).approvers_left).toBe(1);
  });

  it("a rule whose role no member holds asks for an invitation, not a key", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret, {
      document: {
        revision: 1,
        default_effect: "require_approval",
        default_approvers: { roles: ["approver"], count: 1 },
        rules: [],
      },
    });
    const status = await (await reader(w)).status();
    expect(status.unapprovable).toEqual([
      expect.objectContaining({ rule_id: null, roles: ["approver"], members_with_role: 0 }),
    ]);
  });
});
