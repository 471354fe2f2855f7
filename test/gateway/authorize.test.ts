/**
 * POST /v1/authorize on a real Gateway and real PostgreSQL: every row of the
 * decision-only transition table (SPEC 3.2) and the statuses and codes of 7.3
 * this endpoint gives, each checked against what was or was not recorded and
 * counted.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { supersedeCovered } from "../../core/src/actions/index.js";
import { decideApproval } from "../../core/src/approvals/index.js";
import { bundleFacts, verifyBundle } from "../../protocol/src/evidence/index.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import {
  bindPersonalIdentity,
  createAuthorizationWorld,
  createDecisionOnlyTool,
  signDecision,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { createMember } from "../fixtures/organization.js";
import { heldThenLeft, recorded, startTestGateway, type TestGateway } from "./harness.js";
import { forceActionStatus, shiftActionTimes } from "../../core/src/actions/fixtures.test-support.js";

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

let n = 0;
const key = () => `op-${++n}-${Date.now()}`;
const refund = (amount: number | string, extra: Record<string, unknown> = {}) => ({
  order: `o-${n}`,
  amount,
  ...extra,
});

async function approve(approvalRequestId: string, type: "APPROVAL" | "REJECTION" = "APPROVAL") {
  const object = await signDecision(db.pool, approvalRequestId, world.approver.signer, type);
  return decideApproval(db.pool, {
    organizationId: world.organizationId,
    approvalRequestId,
    userId: world.approver.userId,
    object,
    identity: gw.gateway.identity,
  });
}

async function storedBundle(receiptId: string) {
  const { rows } = await db.pool.query(
    "select bundle, bundle_sha256, bundle_size, outcome, kind, head_object_id from receipts where id = $1",
    [receiptId],
  );
  return rows[0];
}

describe("SPEC 3.2: (none) → authorized", () => {
  it("answers every member of 4.1, records the action, a receipt over the PROPOSAL (pending), both events and one count", async () => {
    const before = await recorded(db.pool, world.organizationId);
    const res = await gw.authorize(world.key, {
      tool: world.tool,
      arguments: refund(40),
      idempotency_key: key(),
    });
    expect(res.status).toBe(200);
    const b = res.body;
    expect(b).toMatchObject({
      allowed: true,
      status: "authorized",
      decision: "allow",
      execution: "caller",
      approval_request_id: null,
      policy: null,
    });
    // Time-ordered ids (UUID version 7, core/src/store/row-id.ts): new rows land on their indexes' last pages.
    const version7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    expect(b.protected_action_id).toMatch(version7);
    expect(b.receipt_id).toMatch(version7);
    for (const m of ["task_object_id", "proposal_object_id", "receipt_object_id"])
      expect(b[m]).toMatch(/^ko_[0-9a-f]{64}$/);
    expect(b.arguments_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(Date.parse(b.expires_at)).toBeGreaterThan(Date.now());
    expect(b.note).toMatch(/expires_at/);

    const after = await recorded(db.pool, world.organizationId);
    expect(after).toEqual({
      ...before,
      actions: before.actions + 1,
      receipts: before.receipts + 1,
      objects: before.objects + 2,
      events: before.events + 2,
      usage: before.usage + 1,
    });
    const { rows } = await db.pool.query("select * from protected_actions where id = $1", [
      b.protected_action_id,
    ]);
    expect(rows[0]).toMatchObject({
      status: "authorized",
      execution: "caller",
      policy_effect: "allow",
      rule_id: "small",
      enforcement: "enforce",
      policy_version: 1,
      arguments_digest: b.arguments_digest,
      amount: "40",
      currency: "EUR",
    });
    const events = await db.pool.query(
      "select id, type, data from events where data->>'protected_action_id' = $1 order by type",
      [b.protected_action_id],
    );
    expect(events.rows.map((e) => e.type)).toEqual(["action.authorized", "receipt.created"]);
    for (const e of events.rows) expect(e.id).toMatch(version7);
    const receiptEvent = events.rows[1].data;
    expect(Object.keys(receiptEvent).sort()).toEqual([
      "bundle_sha256",
      "outcome",
      "protected_action_id",
      "receipt_id",
      "receipt_object_id",
      "thread_id",
    ]);
    expect(receiptEvent).toMatchObject({
      receipt_id: b.receipt_id,
      outcome: "pending",
      thread_id: b.task_object_id,
    });

    const receipt = await storedBundle(b.receipt_id);
    expect(receipt).toMatchObject({
      kind: "authorization",
      outcome: "pending",
      head_object_id: b.proposal_object_id,
    });
    expect(bundleFacts(receipt.bundle).bundle_sha256).toBe(receipt.bundle_sha256);
    const verification = verifyBundle(JSON.parse(receipt.bundle.toString("utf8")), {
      trust: { issuers: [gw.gateway.identity.signer.kid], principals: [world.principal.kid] },
    });
    expect(verification.errors).toEqual([]);
    expect(verification.valid).toBe(true);
  });

  it("repeated with the same key before expires_at: the same authorization, nothing new counted (rule 2)", async () => {
    const k = key();
    const first = await gw.authorize(world.key, {
      tool: world.tool,
      arguments: refund(10),
      idempotency_key: k,
    });
    const before = await recorded(db.pool, world.organizationId);
    const again = await gw.authorize(world.key, {
      tool: world.tool,
      arguments: refund(10),
      idempotency_key: k,
      wait_seconds: 0,
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await recorded(db.pool, world.organizationId)).toEqual(before);
  });

  it("after expires_at: expired / AUTHORIZATION_EXPIRED with its ids, nothing new recorded (rule 3)", async () => {
    const k = key();
    const first = await gw.authorize(world.key, {
      tool: world.tool,
      arguments: refund(11),
      idempotency_key: k,
    });
    // Time passes: the authorization window is over.
    await shiftActionTimes(db.pool, first.body.protected_action_id, { expiresAt: "-1 second" });
    const before = await recorded(db.pool, world.organizationId);
    const late = await gw.authorize(world.key, {
      tool: world.tool,
      arguments: refund(11),
      idempotency_key: k,
    });
    expect(late.status).toBe(200);
    expect(late.body).toMatchObject({
      allowed: false,
      status: "expired",
      code: "AUTHORIZATION_EXPIRED",
      protected_action_id: first.body.protected_action_id,
      receipt_id: first.body.receipt_id,
      receipt_object_id: first.body.receipt_object_id,
      task_object_id: first.body.task_object_id,
      proposal_object_id: first.body.proposal_object_id,
    });
    expect(late.body.detail).toMatch(/not permission/);
    expect(await recorded(db.pool, world.organizationId)).toEqual(before);
  });

  it("the same key with a different request: IDEMPOTENCY_KEY_REUSED, nothing recorded", async () => {
    const k = key();
    await gw.authorize(world.key, { tool: world.tool, arguments: refund(12), idempotency_key: k });
    const before = await recorded(db.pool, world.organizationId);
    const other = await gw.authorize(world.key, {
      tool: world.tool,
      arguments: refund(13),
      idempotency_key: k,
    });
    expect(other.status).toBe(400);
    expect(other.body).toMatchObject({
      allowed: false,
      status: "invalid_request",
      code: "IDEMPOTENCY_KEY_REUSED",
    });
    expect(await recorded(db.pool, world.organizationId)).toEqual(before);
  });

  it("without an idempotency key the same request is a new decision each time", async () => {
    const before = await recorded(db.pool, world.organizationId);
    const a = await gw.authorize(world.key, { tool: world.tool, arguments: refund(14) });
    const b = await gw.authorize(world.key, { tool: world.tool, arguments: refund(14) });
    expect(a.body.status).toBe("authorized");
    expect(b.body.protected_action_id).not.toBe(a.body.protected_action_id);
    expect(b.body.arguments_digest).toBe(a.body.arguments_digest);
    const after = await recorded(db.pool, world.organizationId);
    expect(after.actions - before.actions).toBe(2);
    expect(after.usage - before.usage).toBe(2);
  });
});

describe("SPEC 3.2: approvals", () => {
  it("(none) → approval_pending with approval_request_id; nothing authorized, no receipt, one count", async () => {
    const before = await recorded(db.pool, world.organizationId);
    const res = await gw.authorize(world.key, {
      tool: world.tool,
      arguments: refund(500),
      idempotency_key: key(),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ allowed: false, status: "approval_pending", code: "APPROVAL_PENDING" });
    expect(res.body.approval_request_id).toMatch(/^[0-9a-f-]{36}$/);
    // The refusal explains itself at the default disclosure level (rule).
    expect(res.body.policy).toMatchObject({
      schema: "service.cloud/agent-explanation@1",
      disclosure: "rule",
      decided_by: { kind: "rule", rule_id: "needs-approval" },
      approval: { roles: ["owner", "admin"], approver_count: 1 },
    });
    expect(res.body.why).toMatch(/^Why: /);
    const after = await recorded(db.pool, world.organizationId);
    expect(after).toEqual({
      ...before,
      actions: before.actions + 1,
      approvals: before.approvals + 1,
      objects: before.objects + 2,
      events: before.events + 1,
      usage: before.usage + 1,
    });
    const ar = await db.pool.query(
      "select status, roles, approver_kids from approval_requests where id = $1",
      [res.body.approval_request_id],
    );
    expect(ar.rows[0]).toMatchObject({
      status: "pending",
      roles: ["owner", "admin"],
      approver_kids: [world.approver.signer.kid],
    });
  });

  it("approval_pending → person approves → same request repeated → authorized with a receipt over the APPROVAL (granted)", async () => {
    const k = key();
    const body = { tool: world.tool, arguments: refund(700), idempotency_key: k };
    const pending = await gw.authorize(world.key, body);
    const still = await gw.authorize(world.key, body);
    expect(still.body).toEqual(pending.body); // stays pending until decided, nothing new
    await approve(pending.body.approval_request_id);
    const before = await recorded(db.pool, world.organizationId);
    const res = await gw.authorize(world.key, body);
    expect(res.body).toMatchObject({
      allowed: true,
      status: "authorized",
      approval_request_id: pending.body.approval_request_id,
      protected_action_id: pending.body.protected_action_id,
    });
    const receipt = await storedBundle(res.body.receipt_id);
    expect(receipt).toMatchObject({ kind: "authorization", outcome: "granted" });
    const bundle = JSON.parse(receipt.bundle.toString("utf8"));
    expect(bundle.objects.map((o: { body: { type: string } }) => o.body.type).slice(0, 3)).toEqual([
      "TASK",
      "PROPOSAL",
      "APPROVAL",
    ]);
    expect(
      verifyBundle(bundle, {
        trust: { issuers: [gw.gateway.identity.signer.kid], principals: [world.principal.kid] },
      }).valid,
    ).toBe(true);
    const after = await recorded(db.pool, world.organizationId);
    expect(after).toEqual({ ...before, receipts: before.receipts + 1, events: before.events + 2 });
    // And repeated again: the same authorization.
    expect((await gw.authorize(world.key, body)).body).toEqual(res.body);
  });

  it("approval_pending → person rejects → rejected, with its closure receipt (final)", async () => {
    const body = { tool: world.tool, arguments: refund(800), idempotency_key: key() };
    const pending = await gw.authorize(world.key, body);
    const decided = await approve(pending.body.approval_request_id, "REJECTION");
    expect(decided.status).toBe("rejected");
    const res = await gw.authorize(world.key, body);
    expect(res.body).toMatchObject({
      allowed: false,
      status: "rejected",
      code: "REJECTED",
      receipt_id: decided.receipt!.id,
      receipt_object_id: decided.receipt!.receiptObjectId,
    });
    const receipt = await storedBundle(decided.receipt!.id);
    expect(receipt).toMatchObject({ kind: "closure", outcome: "final" });
    const events = await db.pool.query(
      "select data from events where type = 'receipt.created' and data->>'receipt_id' = $1",
      [decided.receipt!.id],
    );
    expect(events.rows[0].data.outcome).toBe("final");
  });

  it("wait_seconds holds the request until the person decides, then answers authorized", async () => {
    const body = { tool: world.tool, arguments: refund(900), idempotency_key: key() };
    const pending = await gw.authorize(world.key, body);
    const held = gw.authorize(world.key, { ...body, wait_seconds: 30 });
    let settled = false;
    void held.then(() => (settled = true));
    await waitForMetric(gw, "countersign_approval_waits", 1);
    expect(settled).toBe(false);
    await approve(pending.body.approval_request_id);
    const res = await held;
    expect(res.body).toMatchObject({
      allowed: true,
      status: "authorized",
      protected_action_id: pending.body.protected_action_id,
    });
  });

  it("a caller that leaves while wait_seconds holds its request stops the wait (the route aborts its signal)", async () => {
    const body = JSON.stringify({
      tool: world.tool,
      arguments: refund(902),
      idempotency_key: key(),
      wait_seconds: 60,
    });
    expect(await heldThenLeft(gw, "/v1/authorize", body, { authorization: `Bearer ${world.key}` })).toEqual({
      held: 1,
      left: 0,
    });
  });

  it("the first request with wait_seconds waits too, and a rejection wakes it as rejected", async () => {
    const body = { tool: world.tool, arguments: refund(901), idempotency_key: key() };
    const held = gw.authorize(world.key, { ...body, wait_seconds: 30 });
    const { rows } = await poll(
      () =>
        db.pool.query(
          "select id from approval_requests where protected_action_id in (select id from protected_actions where idempotency_key = $1)",
          [body.idempotency_key],
        ),
      (r) => r.rows.length === 1,
    );
    await waitForMetric(gw, "countersign_approval_waits", 1);
    await approve(rows[0].id, "REJECTION");
    expect((await held).body).toMatchObject({ status: "rejected", code: "REJECTED" });
  });

  it("more than 20 waits on one key: the extra call answers pending at once", async () => {
    const body = { tool: world.tool, arguments: refund(902), idempotency_key: key() };
    const pending = await gw.authorize(world.key, body);
    const held = Array.from({ length: 20 }, () => gw.authorize(world.key, { ...body, wait_seconds: 30 }));
    await waitForMetric(gw, "countersign_approval_waits", 20);
    const extra = await gw.authorize(world.key, { ...body, wait_seconds: 30 });
    expect(extra.body).toMatchObject({
      status: "approval_pending",
      approval_request_id: pending.body.approval_request_id,
    });
    await approve(pending.body.approval_request_id);
    const answers = await Promise.all(held);
    expect(new Set(answers.map((a) => a.body.receipt_id)).size).toBe(1);
    expect(answers.every((a) => a.body.status === "authorized")).toBe(true);
  });

  it("an approval request that lapsed answers expired / APPROVAL_EXPIRED and is closed", async () => {
    const body = { tool: world.tool, arguments: refund(903), idempotency_key: key() };
    const pending = await gw.authorize(world.key, body);
    await db.pool.query(
      "update approval_requests set expires_at = now() - interval '1 second' where id = $1",
      [pending.body.approval_request_id],
    );
    const res = await gw.authorize(world.key, body);
    expect(res.body).toMatchObject({
      allowed: false,
      status: "expired",
      code: "APPROVAL_EXPIRED",
      protected_action_id: pending.body.protected_action_id,
    });
    const { rows } = await db.pool.query("select status from approval_requests where id = $1", [
      pending.body.approval_request_id,
    ]);
    expect(rows[0].status).toBe("expired");
  });

  it("approved, then an emergency stop: never authorized (denied POLICY_CHANGED), no receipt", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    const body = { tool: w.tool, arguments: refund(600), idempotency_key: key() };
    const pending = await gw.authorize(w.key, body);
    const object = await signDecision(
      db.pool,
      pending.body.approval_request_id,
      w.approver.signer,
      "APPROVAL",
    );
    await decideApproval(db.pool, {
      organizationId: w.organizationId,
      approvalRequestId: pending.body.approval_request_id,
      userId: w.approver.userId,
      object,
      identity: gw.gateway.identity,
    });
    await db.pool.query("update policies set emergency_stopped_at = now() where id = $1", [w.policyId]);
    const before = await recorded(db.pool, w.organizationId);
    const res = await gw.authorize(w.key, body);
    expect(res.body).toMatchObject({ allowed: false, status: "denied", code: "POLICY_CHANGED" });
    expect(await recorded(db.pool, w.organizationId)).toEqual(before);
  });

  it("approved, then the delegation revoked: never authorized (denied VERIFICATION_FAILED)", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    const body = { tool: w.tool, arguments: refund(600), idempotency_key: key() };
    const pending = await gw.authorize(w.key, body);
    const object = await signDecision(
      db.pool,
      pending.body.approval_request_id,
      w.approver.signer,
      "APPROVAL",
    );
    await decideApproval(db.pool, {
      organizationId: w.organizationId,
      approvalRequestId: pending.body.approval_request_id,
      userId: w.approver.userId,
      object,
      identity: gw.gateway.identity,
    });
    await db.pool.query("update delegations set revoked_at = now() where id = $1", [w.delegationId]);
    const res = await gw.authorize(w.key, body);
    expect(res.body).toMatchObject({ allowed: false, status: "denied", code: "VERIFICATION_FAILED" });
    expect((await recorded(db.pool, w.organizationId)).receipts).toBe(0);
  });

  it("approved, then a rollback closes it (supersede_all): never authorized; the identical call gets a new decision (SPEC 3.6)", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    const body = { tool: w.tool, arguments: refund(650), idempotency_key: key() };
    const pending = await gw.authorize(w.key, body);
    const object = await signDecision(
      db.pool,
      pending.body.approval_request_id,
      w.approver.signer,
      "APPROVAL",
    );
    await decideApproval(db.pool, {
      organizationId: w.organizationId,
      approvalRequestId: pending.body.approval_request_id,
      userId: w.approver.userId,
      object,
      identity: gw.gateway.identity,
    });
    // What the Cloud API's rollback does to covered open actions (core/src/actions/supersede.ts).
    const closed = await supersedeCovered(db.pool, {
      organizationId: w.organizationId,
      policyId: w.policyId,
      versionId: randomUUID(),
      scope: "supersede_all",
    });
    expect(closed).toBe(1);
    const before = await recorded(db.pool, w.organizationId);
    const res = await gw.authorize(w.key, body);
    // Decided again under the version in force: held for a person again, as a new action.
    expect(res.body).toMatchObject({ allowed: false, status: "approval_pending" });
    expect(res.body.protected_action_id).not.toBe(pending.body.protected_action_id);
    const after = await recorded(db.pool, w.organizationId);
    expect({ actions: after.actions, receipts: after.receipts }).toEqual({
      actions: before.actions + 1,
      receipts: before.receipts,
    });
    const { rows } = await db.pool.query(
      "select status, decision_code from protected_actions where id = $1",
      [pending.body.protected_action_id],
    );
    expect(rows[0]).toEqual({ status: "expired", decision_code: "SUPERSEDED" });
  });

  it("cancelled by the organization: cancelled / CANCELLED", async () => {
    const body = { tool: world.tool, arguments: refund(904), idempotency_key: key() };
    const pending = await gw.authorize(world.key, body);
    await forceActionStatus(db.pool, pending.body.protected_action_id, "cancelled");
    expect((await gw.authorize(world.key, body)).body).toMatchObject({
      allowed: false,
      status: "cancelled",
      code: "CANCELLED",
    });
  });
});

describe("SPEC 3.2: (none) → denied and the refusals of 7.3", () => {
  it("policy denies: denied / POLICY_DENIED, recorded and counted, no receipt, explanation names the rule", async () => {
    const before = await recorded(db.pool, world.organizationId);
    const res = await gw.authorize(world.key, {
      tool: world.tool,
      arguments: refund(20000),
      idempotency_key: key(),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      allowed: false,
      status: "denied",
      code: "POLICY_DENIED",
      policy: { decided_by: { kind: "rule", rule_id: "hard-cap" } },
    });
    const after = await recorded(db.pool, world.organizationId);
    expect(after).toEqual({
      ...before,
      actions: before.actions + 1,
      objects: before.objects + 1,
      events: before.events + 1,
      usage: before.usage + 1,
    });
    const ev = await db.pool.query(
      "select data from events where type = 'action.denied' and data->>'protected_action_id' = $1",
      [res.body.protected_action_id],
    );
    expect(ev.rows[0].data.reason.code).toBe("POLICY_DENIED");
    expect(JSON.stringify(ev.rows[0].data)).not.toContain("20000");
  });

  it("the same denied request repeated with its key carries exactly the same refusal even after the disclosure level changed", async () => {
    const body = { tool: world.tool, arguments: refund(20001), idempotency_key: key() };
    const first = await gw.authorize(world.key, body);
    await db.pool.query("update organizations set agent_disclosure = 'none' where id = $1", [
      world.organizationId,
    ]);
    const again = await gw.authorize(world.key, body);
    await db.pool.query("update organizations set agent_disclosure = 'rule' where id = $1", [
      world.organizationId,
    ]);
    expect(again.body).toEqual(first.body);
  });

  it("disclosure none: the refusal carries no explanation", async () => {
    await db.pool.query("update policies set agent_disclosure = 'none' where id = $1", [world.policyId]);
    const res = await gw.authorize(world.key, { tool: world.tool, arguments: refund(20002) });
    await db.pool.query("update policies set agent_disclosure = 'inherit' where id = $1", [world.policyId]);
    expect(res.body.code).toBe("POLICY_DENIED");
    expect(res.body.policy).toBeUndefined();
    expect(res.body.why).toBeUndefined();
  });

  it.each([
    ["UNKNOWN_TOOL", async () => ({ tool: "no_such_tool" })],
    [
      "UNKNOWN_TOOL",
      async (w: AuthorizationWorld) => ({
        tool: (await createDecisionOnlyTool(db.pool, w.organizationId, { enabled: false })).name,
      }),
    ],
    [
      "UNKNOWN_TOOL",
      async (w: AuthorizationWorld) => {
        const t = await createDecisionOnlyTool(db.pool, w.organizationId);
        await db.pool.query("update mcp_servers set status = 'disabled' where id = $1", [t.serverId]);
        return { tool: t.name };
      },
    ],
    [
      "NOT_DECISION_ONLY",
      async (w: AuthorizationWorld) => ({
        tool: (await createDecisionOnlyTool(db.pool, w.organizationId, { serverKind: "mcp" })).name,
      }),
    ],
  ])("%s: 400 invalid_request, nothing recorded", async (code, make) => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    const request = await make(w);
    const before = await recorded(db.pool, w.organizationId);
    const res = await gw.authorize(w.key, { arguments: refund(1), idempotency_key: key(), ...request });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ allowed: false, status: "invalid_request", code });
    expect(await recorded(db.pool, w.organizationId)).toEqual(before);
  });

  it("TOOL_REAUTHORIZATION_REQUIRED: denied, no action recorded, nothing consumed", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    const tool = await createDecisionOnlyTool(db.pool, w.organizationId, {
      authorized: false,
      amountMapping: { amount_path: "amount", currency: "EUR" },
    });
    const before = await recorded(db.pool, w.organizationId);
    const res = await gw.authorize(w.key, { tool: tool.name, arguments: refund(1) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      allowed: false,
      status: "denied",
      code: "TOOL_REAUTHORIZATION_REQUIRED",
    });
    expect(await recorded(db.pool, w.organizationId)).toEqual(before);
  });

  async function expectRecordedDenial(w: AuthorizationWorld, request: Record<string, unknown>, code: string) {
    const before = await recorded(db.pool, w.organizationId);
    const res = await gw.authorize(w.key, { tool: w.tool, arguments: refund(5), ...request });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ allowed: false, status: "denied", code });
    expect(res.body.protected_action_id).toMatch(/^[0-9a-f-]{36}$/);
    const after = await recorded(db.pool, w.organizationId);
    expect(after.actions).toBe(before.actions + 1);
    expect(after.usage).toBe(before.usage + 1);
    expect(after.receipts).toBe(before.receipts);
    const { rows } = await db.pool.query(
      "select status, decision_code from protected_actions where id = $1",
      [res.body.protected_action_id],
    );
    expect(rows[0]).toEqual({ status: "denied", decision_code: code });
    return res.body;
  }

  it("INVALID_AMOUNT: the mapped amount is not an exact amount", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    await expectRecordedDenial(w, { arguments: { amount: "a lot" } }, "INVALID_AMOUNT");
  });

  it("INVALID_TOOL_CONFIGURATION: the stored amount mapping is unusable", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    await db.pool.query("update tools set amount_mapping = '{\"amount_path\": 7}' where id = $1", [w.toolId]);
    await expectRecordedDenial(w, {}, "INVALID_TOOL_CONFIGURATION");
  });

  it("NO_PRINCIPAL: the organization has no principal", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    await db.pool.query("delete from identities where organization_id = $1 and kind = 'principal'", [
      w.organizationId,
    ]);
    await expectRecordedDenial(w, {}, "NO_PRINCIPAL");
  });

  it("IDENTITY_EQUIVOCATION: the principal equivocated", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    await db.pool.query("update identities set status = 'equivocated' where kid = $1", [w.principal.kid]);
    await expectRecordedDenial(w, {}, "IDENTITY_EQUIVOCATION");
  });

  it("NO_DELEGATION: no delegation grants the action (expired, revoked or other actions)", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret, { permissions: ["crm.read"] });
    const body = await expectRecordedDenial(w, {}, "NO_DELEGATION");
    expect(body.policy.decided_by).toEqual({ kind: "delegation", rule_id: null, description: null });
    const w2 = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    await db.pool.query("update delegations set revoked_at = now() where id = $1", [w2.delegationId]);
    await expectRecordedDenial(w2, {}, "NO_DELEGATION");
  });

  it("NO_POLICY: the agent has no policy, or its policy no active version", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    await db.pool.query("update agents set policy_id = null where id = $1", [w.agentId]);
    await expectRecordedDenial(w, {}, "NO_POLICY");
    await db.pool.query("update agents set policy_id = $2 where id = $1", [w.agentId, w.policyId]);
    await db.pool.query("update policies set active_version_id = null where id = $1", [w.policyId]);
    await expectRecordedDenial(w, {}, "NO_POLICY");
  });

  it("INVALID_POLICY: the active version's stored document cannot be evaluated", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    await db.pool.query('update policy_versions set document = \'{"rules": "broken"}\' where id = $1', [
      w.versionId,
    ]);
    await expectRecordedDenial(w, {}, "INVALID_POLICY");
  });

  it("emergency stop: every call denied POLICY_DENIED naming the stop", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    await db.pool.query("update policies set emergency_stopped_at = now() where id = $1", [w.policyId]);
    const body = await expectRecordedDenial(w, {}, "POLICY_DENIED");
    expect(body.detail).toMatch(/emergency stop/);
    expect(body.policy.decided_by.kind).toBe("emergency_stop");
  });

  it("NO_APPROVERS: nobody with an approving role has a personal identity", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    await db.pool.query("delete from identities where user_id = $1", [w.approver.userId]);
    const before = await recorded(db.pool, w.organizationId);
    await expectRecordedDenial(w, { arguments: refund(500) }, "NO_APPROVERS");
    expect((await recorded(db.pool, w.organizationId)).approvals).toBe(before.approvals);
  });

  it("TOO_MANY_APPROVERS: the approving roles admit more than 32 identities", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    for (let i = 0; i < 7; i++) {
      const admin = await createMember(db.pool, w.organizationId, "admin");
      for (let j = 0; j < 5; j++) await bindPersonalIdentity(db.pool, w.organizationId, admin);
    }
    await expectRecordedDenial(w, { arguments: refund(500) }, "TOO_MANY_APPROVERS");
  });

  it("PLAN_LIMIT_EXCEEDED: plan_limit, nothing recorded or counted", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret, { plan: "developer" });
    await db.pool.query(
      "insert into usage_counters (organization_id, month, shard, protected_actions) values ($1, date_trunc('month', now() at time zone 'utc')::date, 0, 500)",
      [w.organizationId],
    );
    const before = await recorded(db.pool, w.organizationId);
    const res = await gw.authorize(w.key, { tool: w.tool, arguments: refund(5) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ allowed: false, status: "plan_limit", code: "PLAN_LIMIT_EXCEEDED" });
    expect(await recorded(db.pool, w.organizationId)).toEqual(before);
  });

  it("the Developer plan counts up to its limit exactly", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret, { plan: "developer" });
    await db.pool.query(
      "insert into usage_counters (organization_id, month, shard, protected_actions) values ($1, date_trunc('month', now() at time zone 'utc')::date, 0, 498)",
      [w.organizationId],
    );
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => gw.authorize(w.key, { tool: w.tool, arguments: refund(5) })),
    );
    expect(answers.filter((a) => a.body.status === "authorized")).toHaveLength(2);
    expect(answers.filter((a) => a.body.status === "plan_limit")).toHaveLength(3);
    expect((await recorded(db.pool, w.organizationId)).actions).toBe(2);
  });
});

describe("observe windows (SPEC 3.9) at decision time", () => {
  it("an open window relaxes a held call: authorized with policy {enforcement observe, relaxed}", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    await db.pool.query(
      "insert into observe_windows (organization_id, agent_id, hours, ends_at, live) values ($1, $2, 1, now() + interval '1 hour', true)",
      [w.organizationId, w.agentId],
    );
    const res = await gw.authorize(w.key, { tool: w.tool, arguments: refund(500) });
    expect(res.body).toMatchObject({
      allowed: true,
      status: "authorized",
      policy: {
        enforcement: "observe",
        relaxed: true,
        policy_effect: "require_approval",
        rule_id: "needs-approval",
      },
    });
    const { rows } = await db.pool.query(
      "select enforcement, relaxed, policy_effect from protected_actions where id = $1",
      [res.body.protected_action_id],
    );
    expect(rows[0]).toEqual({ enforcement: "observe", relaxed: true, policy_effect: "require_approval" });
    const ev = await db.pool.query(
      "select count(*)::int as n from events where type = 'action.observe_override' and data->>'protected_action_id' = $1",
      [res.body.protected_action_id],
    );
    expect(ev.rows[0].n).toBe(1);
  });

  it("explicit deny rules stay enforced, and a window without live opt-in does not relax live keys", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    await db.pool.query(
      "insert into observe_windows (organization_id, agent_id, hours, ends_at, live) values ($1, $2, 1, now() + interval '1 hour', true)",
      [w.organizationId, w.agentId],
    );
    expect((await gw.authorize(w.key, { tool: w.tool, arguments: refund(20000) })).body.code).toBe(
      "POLICY_DENIED",
    );
    await db.pool.query("update observe_windows set live = false where agent_id = $1", [w.agentId]);
    expect((await gw.authorize(w.key, { tool: w.tool, arguments: refund(500) })).body.status).toBe(
      "approval_pending",
    );
  });
});

describe("HTTP-level answers (7.3)", () => {
  it("401 UNAUTHORIZED for a missing, malformed, unknown or revoked key, or a disabled agent: one answer, nothing recorded", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    const before = await recorded(db.pool, w.organizationId);
    const unknown = w.key.replace(/_[A-Za-z0-9_-]{43}$/, `_${"A".repeat(43)}`);
    const answers = [
      await gw.authorize(null, { tool: w.tool }),
      await gw.authorize("svc_live_nope", { tool: w.tool }),
      await gw.authorize(unknown, { tool: w.tool }),
    ];
    await db.pool.query("update agents set status = 'disabled' where id = $1", [w.agentId]);
    answers.push(await gw.authorize(w.key, { tool: w.tool }));
    await db.pool.query("update agents set status = 'active' where id = $1", [w.agentId]);
    await db.pool.query("update api_keys set revoked_at = now() where id = $1", [w.keyId]);
    answers.push(await gw.authorize(w.key, { tool: w.tool }));
    for (const a of answers) {
      expect(a.status).toBe(401);
      expect(a.body).toEqual(answers[0]!.body);
    }
    expect(answers[0]!.body).toMatchObject({ allowed: false, status: "unauthorized", code: "UNAUTHORIZED" });
    expect(await recorded(db.pool, w.organizationId)).toEqual(before);
  });

  it.each([
    ["an unknown member", { tool: "t", colour: "blue" }, "INVALID_REQUEST"],
    ["a missing tool", { arguments: {} }, "INVALID_REQUEST"],
    ["a tool of 129 chars", { tool: "t".repeat(129) }, "INVALID_REQUEST"],
    ["an idempotency key of 201 chars", { tool: "t", idempotency_key: "k".repeat(201) }, "INVALID_REQUEST"],
    ["arguments that are not an object", { tool: "t", arguments: [1] }, "INVALID_REQUEST"],
    ["a fractional wait", { tool: "t", wait_seconds: 1.5 }, "INVALID_REQUEST"],
    ["a decimal argument", { tool: "t", arguments: { amount: 1.5 } }, "INVALID_ARGUMENTS"],
    ["member names differing by case", { tool: "t", arguments: { a: 1, A: 2 } }, "INVALID_ARGUMENTS"],
  ])("400 for %s, nothing recorded", async (_what, body, code) => {
    const before = await recorded(db.pool, world.organizationId);
    const res = await gw.authorize(world.key, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ allowed: false, status: "invalid_request", code });
    expect(await recorded(db.pool, world.organizationId)).toEqual(before);
  });

  it("429 with Retry-After once the key's bucket (burst 120) is empty; nothing recorded by refused calls", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    await db.pool.query(
      "insert into rate_limit_buckets (api_key_id, tokens, refilled_at) values ($1, 0, now() + interval '10 seconds')",
      [w.keyId],
    );
    const before = await recorded(db.pool, w.organizationId);
    const res = await gw.authorize(w.key, { tool: w.tool, arguments: refund(1) });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(res.body).toMatchObject({
      allowed: false,
      status: "unavailable",
      code: "RATE_LIMITED",
      retryable: true,
    });
    expect(await recorded(db.pool, w.organizationId)).toEqual(before);
  });

  it("503 unavailable / GATEWAY_BUSY when the organization's queue is full: retryable, nothing recorded", async () => {
    const busy = await startTestGateway(db, {
      keyHashSecret: gw.keyHashSecret,
      signingKey: gw.signingKey,
      queue: { perOrganization: 0, maxWaiting: 0 },
    });
    try {
      const before = await recorded(db.pool, world.organizationId);
      const res = await busy.authorize(world.key, { tool: world.tool, arguments: refund(1) });
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("5");
      expect(res.body).toMatchObject({
        allowed: false,
        status: "unavailable",
        code: "GATEWAY_BUSY",
        retryable: true,
      });
      expect(await recorded(db.pool, world.organizationId)).toEqual(before);
    } finally {
      await busy.close();
    }
  });

  it("GET /metrics shows decisions by status and code, the latency histogram, waits and queue depth", async () => {
    const text = await (await fetch(`${gw.gateway.url}/metrics`)).text();
    expect(text).toMatch(/countersign_decisions_total\{mode="caller",status="authorized",code=""\} \d+/);
    expect(text).toMatch(
      /countersign_decisions_total\{mode="caller",status="denied",code="POLICY_DENIED"\} \d+/,
    );
    expect(text).toContain("countersign_decision_duration_seconds_bucket");
    expect(text).toContain("countersign_approval_waits");
    expect(text).toContain("countersign_queue_depth");
    // Every decision written, alone or batched, is counted in the batch sizes.
    expect(text).toMatch(/countersign_gateway_write_batch_size_count\{write="decision"\} [1-9]/);
  });
});

async function poll<T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function waitForMetric(g: TestGateway, name: string, value: number) {
  await poll(
    async () =>
      (await (await fetch(`${g.gateway.url}/metrics`)).text()).match(new RegExp(`^${name} (\\d+)`, "m"))?.[1],
    (v) => Number(v) === value,
  );
}
