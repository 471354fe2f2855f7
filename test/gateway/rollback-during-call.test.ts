/**
 * A real Gateway call made while a rollback is in progress (SPEC
 * 3.6): the caller repeats /v1/authorize for an approved decision-only action
 * while the Cloud API's rollback with supersede_all holds its locks. The
 * call must wait for the rollback and then answer the closed action, never
 * authorize it: from the moment of rollback no covered action is approved
 * or executed.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { decideApproval } from "../../core/src/approvals/index.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import { createAuthorizationWorld, refundPolicy, signDecision } from "../fixtures/authorization.js";
import { startCloudApi, type CloudApi } from "../fixtures/cloud-api.js";
import { signedInMember } from "../fixtures/policies.js";
import { recorded, startTestGateway, type TestGateway } from "./harness.js";

let db: TestDatabase;
let gw: TestGateway;
let api: CloudApi;

beforeAll(async () => {
  db = await createTestDatabase();
  gw = await startTestGateway(db);
  api = await startCloudApi(db);
});
afterAll(async () => {
  await api?.close();
  await gw?.close();
  await db?.drop();
});

/** Exactly one backend waits on a lock while running a statement like this. */
const waitingOn = (pattern: string) =>
  expect
    .poll(
      async () =>
        (
          await db.pool.query(
            "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like $1",
            [pattern],
          )
        ).rows[0].n,
      {
        timeout: 15_000,
      },
    )
    .toBe(1);

it("a /v1/authorize repeat of an approved call during a supersede_all rollback waits, then answers expired / SUPERSEDED with nothing authorized", async () => {
  const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
  const { b: owner } = await signedInMember(api, db.pool, w.organizationId, "owner");
  // v2 (the active version at the time of the call): v1 with one more rule.
  const v2 = await owner.post(`/orgs/${w.organizationId}/policies/${w.policyId}/versions`, {
    document: {
      ...refundPolicy,
      rules: [
        ...refundPolicy.rules,
        {
          id: "tiny",
          effect: "allow",
          conditions: [{ field: "amount", op: "lte", threshold: "1", currency: "EUR" }],
        },
      ],
    },
  });
  expect(v2.status, JSON.stringify(v2.body)).toBe(201);
  const v2Id = v2.body.version.id;
  expect(
    (
      await owner.post(`/orgs/${w.organizationId}/policies/${w.policyId}/versions/${v2Id}/activate`, {
        expected_active_version_id: w.versionId,
      })
    ).status,
  ).toBe(200);

  const body = {
    tool: w.tool,
    arguments: { order: "o-1", amount: 650 },
    idempotency_key: "rollback-during-call",
  };
  const pending = await gw.authorize(w.key, body);
  expect(pending.body).toMatchObject({ allowed: false, status: "approval_pending" });
  const object = await signDecision(db.pool, pending.body.approval_request_id, w.approver.signer, "APPROVAL");
  await decideApproval(db.pool, {
    organizationId: w.organizationId,
    approvalRequestId: pending.body.approval_request_id,
    userId: w.approver.userId,
    object,
    identity: gw.gateway.identity,
  });

  // A reader holds the policy row, so the rollback stops right after locking the open actions.
  const holder = await db.pool.connect();
  try {
    await holder.query("begin");
    await holder.query("select 1 from policies where id = $1 for share", [w.policyId]);
    const rolling = owner.post(`/orgs/${w.organizationId}/policies/${w.policyId}/rollback`, {
      expected_active_version_id: v2Id,
      open_actions: "supersede_all",
    });
    await waitingOn("%from policies where id = $1 and organization_id = $2 for update%");
    const before = await recorded(db.pool, w.organizationId);
    // The caller repeats the call now; the Gateway's hand-out waits for the rollback's lock on the action.
    const calling = gw.authorize(w.key, body);
    await waitingOn("%for update of pa for share of d, p%");
    await holder.query("commit");
    const [rb, res] = await Promise.all([rolling, calling]);
    expect(rb.status, JSON.stringify(rb.body)).toBe(200);
    expect(rb.body).toMatchObject({ restored_version: { id: w.versionId }, closed_actions: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      allowed: false,
      status: "expired",
      code: "SUPERSEDED",
      protected_action_id: pending.body.protected_action_id,
    });
    // Nothing was authorized: no receipt, no new action, no action.authorized event.
    const after = await recorded(db.pool, w.organizationId);
    expect({ actions: after.actions, receipts: after.receipts, approvals: after.approvals }).toEqual({
      actions: before.actions,
      receipts: before.receipts,
      approvals: before.approvals,
    });
    const authorizedEvents = await db.pool.query(
      "select count(*)::int as n from events where type = 'action.authorized' and data->>'protected_action_id' = $1",
      [pending.body.protected_action_id],
    );
    expect(authorizedEvents.rows[0].n).toBe(0);
  } finally {
    holder.release();
  }
});
