/**
 * Approvals and actions through the Cloud API (SPEC 2.6, 2.7, 3.1, 3.2, 4.4,
 * 7.2) on real PostgreSQL, with a real Gateway deciding the calls. Every
 * refusal checks the answer and that nothing was written.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSeed, nodeSigner, verifyBundle } from "../../protocol/src/evidence/index.js";
import {
  bindPersonalIdentity,
  createActivePolicy,
  createDelegation,
  createGatewayKey,
  refundPolicy,
  signDecision,
} from "../fixtures/authorization.js";
import { createAgent } from "../fixtures/organization.js";
import { addMember, managementKey } from "../fixtures/configuration.js";
import { Browser, DASHBOARD, startCloudApi, type Answer } from "../fixtures/cloud-api.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import {
  evidenceSnapshot,
  evidenceWorld,
  pendingCall,
  signCancellation,
  type EvidenceWorld,
} from "./world.js";

let db: TestDatabase;
let w: EvidenceWorld;

beforeAll(async () => {
  db = await createTestDatabase();
  w = await evidenceWorld(db);
});
afterAll(async () => {
  await w?.close();
  await db?.drop();
});

async function refusedUnchanged(call: () => Promise<Answer>, status: number, code: string): Promise<Answer> {
  const before = await evidenceSnapshot(db.pool);
  const res = await call();
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(await evidenceSnapshot(db.pool)).toEqual(before);
  return res;
}

const decide = (approvalId: string, decision: unknown, b = w.approver.b) =>
  b.post(`/orgs/${w.org}/approvals/${approvalId}/decision`, { decision });

describe("approval requests", () => {
  it("lists and reads a pending request with what a browser needs to sign", async () => {
    const { approvalId, actionId } = await pendingCall(w);
    const list = await w.o.owner.get(`/orgs/${w.org}/approvals?status=pending`);
    expect(list.status).toBe(200);
    expect(list.body.items.map((a: { id: string }) => a.id)).toContain(approvalId);
    const one = await w.o.owner.get(`/orgs/${w.org}/approvals/${approvalId}`);
    expect(one.status).toBe(200);
    const a = one.body.approval;
    expect(a).toMatchObject({
      id: approvalId,
      status: "pending",
      protected_action_id: actionId,
      roles: ["owner", "admin"],
      approver_count: 1,
    });
    expect(a.approver_kids).toContain(w.approver.signer.kid);
    expect(a.action).toMatchObject({
      id: actionId,
      status: "pending_approval",
      execution: "caller",
      tool: w.tool,
      amount: { value: "300", currency: "EUR" },
    });
    expect(a.policy).toMatchObject({
      policy_id: w.policyId,
      version_id: w.versionId,
      rule_id: "needs-approval",
      policy_effect: "require_approval",
      enforcement: "enforce",
    });
    expect(a.proposal.body.type).toBe("PROPOSAL");
    expect(a.proposal.body.payload.approval_request.id).toBe(approvalId);
  });

  it("needs approvals:read for a management key; read alone is refused", async () => {
    const { approvalId } = await pendingCall(w);
    const ok = await managementKey(w.api, w.o, ["approvals:read"]);
    expect((await ok("GET", `/orgs/${w.org}/approvals/${approvalId}`)).status).toBe(200);
    const readOnly = await managementKey(w.api, w.o, ["read"]);
    const res = await readOnly("GET", `/orgs/${w.org}/approvals`);
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({
      code: "FORBIDDEN",
      details: { required_scope: "approvals:read" },
    });
  });

  it("answers 404 for a request of another organization or a malformed id", async () => {
    expect(
      (await w.o.owner.get(`/orgs/${w.org}/approvals/00000000-0000-4000-8000-000000000000`)).status,
    ).toBe(404);
    expect((await w.o.owner.get(`/orgs/${w.org}/approvals/not-an-id`)).status).toBe(404);
  });
});

describe("POST .../approvals/<id>/decision", () => {
  it("approves with the listed approver's personal key; the repeated call is then authorized over the APPROVAL", async () => {
    const { approvalId, call } = await pendingCall(w);
    const object = await signDecision(db.pool, approvalId, w.approver.signer, "APPROVAL");
    const res = await decide(approvalId, object);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      approval: {
        id: approvalId,
        status: "approved",
        decided_by_kid: w.approver.signer.kid,
        decision_object_id: object.id,
      },
      receipt: null,
    });
    const again = await w.gw.authorize(w.key, call);
    expect(again.body).toMatchObject({
      allowed: true,
      status: "authorized",
      approval_request_id: approvalId,
    });
    const { rows } = await db.pool.query("select outcome, kind from receipts where id = $1", [
      again.body.receipt_id,
    ]);
    expect(rows[0]).toEqual({ outcome: "granted", kind: "authorization" });
    const audit = await db.pool.query("select action, actor_id from audit_log where target_id = $1", [
      approvalId,
    ]);
    expect(audit.rows).toEqual([{ action: "approval.approved", actor_id: w.approver.userId }]);
  });

  it("wakes a Gateway holding the call while the person decides", async () => {
    const { approvalId, call } = await pendingCall(w);
    const held = w.gw.authorize(w.key, { ...(call as object), wait_seconds: 30 });
    // The wait is registered once the Gateway holds the request; deciding before that is answered the same way.
    const object = await signDecision(db.pool, approvalId, w.approver.signer, "APPROVAL");
    expect((await decide(approvalId, object)).status).toBe(200);
    expect((await held).body).toMatchObject({
      allowed: true,
      status: "authorized",
      approval_request_id: approvalId,
    });
  });

  it("rejects: closure receipt with outcome final, receipt.created, action rejected", async () => {
    const { approvalId, actionId, call } = await pendingCall(w);
    const before = await db.pool.query("select count(*)::int as n from events where organization_id = $1", [
      w.org,
    ]);
    const res = await decide(
      approvalId,
      await signDecision(db.pool, approvalId, w.approver.signer, "REJECTION"),
    );
    expect(res.status).toBe(200);
    expect(res.body.approval.status).toBe("rejected");
    expect(res.body.receipt).toMatchObject({ outcome: "final" });
    const events = await db.pool.query(
      "select type, data from events where organization_id = $1 order by created_at desc limit 5",
      [w.org],
    );
    const after = await db.pool.query("select count(*)::int as n from events where organization_id = $1", [
      w.org,
    ]);
    expect(after.rows[0].n - before.rows[0].n).toBe(1);
    expect(events.rows[0]).toMatchObject({
      type: "receipt.created",
      data: { receipt_id: res.body.receipt.id, protected_action_id: actionId, outcome: "final" },
    });
    expect((await w.gw.authorize(w.key, call)).body).toMatchObject({
      allowed: false,
      status: "rejected",
      receipt_id: res.body.receipt.id,
    });
  });

  it("refuses a replayed signed approval as REPLAY, and another decision on a decided request as ALREADY_DECIDED", async () => {
    const { approvalId } = await pendingCall(w);
    const object = await signDecision(db.pool, approvalId, w.approver.signer, "APPROVAL");
    expect((await decide(approvalId, object)).status).toBe(200);
    await refusedUnchanged(() => decide(approvalId, object), 409, "REPLAY");
    const second = await signDecision(db.pool, approvalId, w.approver.signer, "REJECTION");
    await refusedUnchanged(() => decide(approvalId, second), 409, "ALREADY_DECIDED");
  });

  it("refuses a decision on a request that lapsed as EXPIRED, before and after the lapse is recorded", async () => {
    const { approvalId, call } = await pendingCall(w);
    const object = await signDecision(db.pool, approvalId, w.approver.signer, "APPROVAL");
    // The request's time runs out (as 8.4's lifetime would); nothing has recorded the lapse yet.
    await db.pool.query(
      "update approval_requests set expires_at = now() - interval '1 second' where id = $1",
      [approvalId],
    );
    await refusedUnchanged(() => decide(approvalId, object), 409, "EXPIRED");
    // The repeated call records the lapse (SPEC 7.3 APPROVAL_EXPIRED); the request stays EXPIRED.
    expect((await w.gw.authorize(w.key, call)).body).toMatchObject({
      status: "expired",
      code: "APPROVAL_EXPIRED",
    });
    await refusedUnchanged(() => decide(approvalId, object), 409, "EXPIRED");
  });

  it("refuses an APPROVAL signed for another request (replayed onto this one): VERIFICATION_FAILED", async () => {
    const first = await pendingCall(w);
    const second = await pendingCall(w);
    const forFirst = await signDecision(db.pool, first.approvalId, w.approver.signer, "APPROVAL");
    const res = await refusedUnchanged(() => decide(second.approvalId, forFirst), 422, "VERIFICATION_FAILED");
    expect(res.body.error.details.service_code).toBe("CHAIN_BROKEN");
  });

  it("refuses an approval signed by an identity the request does not list: IDENTITY_MISMATCH", async () => {
    const { approvalId } = await pendingCall(w);
    // Bound after the request was created, so not among its approver identities.
    const late = await bindPersonalIdentity(db.pool, w.org, w.approver.userId);
    await refusedUnchanged(() => decide(approvalId, {}), 422, "VERIFICATION_FAILED");
    const object = await signDecision(db.pool, approvalId, late, "APPROVAL");
    await refusedUnchanged(() => decide(approvalId, object), 422, "IDENTITY_MISMATCH");
  });

  it("refuses an approver the request does not list (its rule names owner and admin), signing with their own bound key: IDENTITY_MISMATCH", async () => {
    const { approvalId } = await pendingCall(w);
    const approver = await addMember(w.api, w.o, "approver");
    const signer = await bindPersonalIdentity(db.pool, w.org, approver.userId);
    const object = await signDecision(db.pool, approvalId, signer, "APPROVAL");
    await refusedUnchanged(() => decide(approvalId, object, approver.b), 422, "IDENTITY_MISMATCH");
  });

  it("refuses developers and viewers by their role (403 FORBIDDEN), before looking at the decision, signed or not", async () => {
    const { approvalId } = await pendingCall(w);
    for (const role of ["developer", "viewer"] as const) {
      const member = await addMember(w.api, w.o, role);
      await refusedUnchanged(() => decide(approvalId, {}, member.b), 403, "FORBIDDEN");
      await refusedUnchanged(
        () => decide(approvalId, { body: { type: "APPROVAL" } }, member.b),
        403,
        "FORBIDDEN",
      );
      const signer = await bindPersonalIdentity(db.pool, w.org, member.userId);
      const object = await signDecision(db.pool, approvalId, signer, "APPROVAL");
      await refusedUnchanged(() => decide(approvalId, object, member.b), 403, "FORBIDDEN");
    }
  });

  it("refuses someone else's key (IDENTITY_MISMATCH) and a key bound to nobody (IDENTITY_UNKNOWN)", async () => {
    const { approvalId } = await pendingCall(w);
    const object = await signDecision(db.pool, approvalId, w.approver.signer, "APPROVAL");
    await refusedUnchanged(() => decide(approvalId, object, w.o.owner), 422, "IDENTITY_MISMATCH");
    const stranger = await signDecision(db.pool, approvalId, nodeSigner(generateSeed()), "APPROVAL");
    await refusedUnchanged(() => decide(approvalId, stranger), 422, "IDENTITY_UNKNOWN");
  });

  it("refuses a tampered signature (VERIFICATION_FAILED) and a request a rollback replaced (POLICY_VERSION_REPLACED)", async () => {
    const { approvalId } = await pendingCall(w);
    const object = await signDecision(db.pool, approvalId, w.approver.signer, "APPROVAL");
    const tampered = {
      ...object,
      signature: object.signature.slice(0, -4) + (object.signature.endsWith("AAAA") ? "BBBB" : "AAAA"),
    };
    await refusedUnchanged(() => decide(approvalId, tampered), 422, "VERIFICATION_FAILED");
    await db.pool.query("update approval_requests set status = 'superseded' where id = $1", [approvalId]);
    await refusedUnchanged(() => decide(approvalId, object), 409, "POLICY_VERSION_REPLACED");
  });

  it("refuses management keys whatever their scopes, and bodies without a decision", async () => {
    const { approvalId } = await pendingCall(w);
    const key = await managementKey(w.api, w.o, ["read", "approvals:read", "receipts:read"]);
    const object = await signDecision(db.pool, approvalId, w.approver.signer, "APPROVAL");
    await refusedUnchanged(
      () => key("POST", `/orgs/${w.org}/approvals/${approvalId}/decision`, { decision: object }),
      403,
      "FORBIDDEN",
    );
    await refusedUnchanged(
      () => w.approver.b.post(`/orgs/${w.org}/approvals/${approvalId}/decision`, { object }),
      400,
      "VALIDATION_FAILED",
    );
  });
});

describe("actions", () => {
  it("lists with filters and reads every field of SPEC 2.6", async () => {
    const { actionId, idempotencyKey } = await pendingCall(w, 250);
    const list = await w.o.owner.get(
      `/orgs/${w.org}/actions?status=pending_approval&agent_id=${w.agentId}&execution=caller&limit=100`,
    );
    expect(list.status).toBe(200);
    expect(list.body.items.every((a: { status: string }) => a.status === "pending_approval")).toBe(true);
    expect(list.body.items.map((a: { id: string }) => a.id)).toContain(actionId);
    expect((await w.o.owner.get(`/orgs/${w.org}/actions?status=denied`)).body.items).toEqual([]);
    const one = await w.approver.b.get(`/orgs/${w.org}/actions/${actionId}`);
    expect(one.status).toBe(200);
    expect(one.body.action).toMatchObject({
      id: actionId,
      status: "pending_approval",
      execution: "caller",
      environment: "live",
      agent: { id: w.agentId },
      tool: w.tool,
      action: "payments.refund",
      error_code: null,
      idempotency_key: idempotencyKey,
      amount: { value: "250", currency: "EUR" },
      policy: {
        policy_id: w.policyId,
        version_id: w.versionId,
        version: 1,
        rule_id: "needs-approval",
        policy_effect: "require_approval",
        enforcement: "enforce",
      },
      evidence: { status: "hosted", deleted_at: null },
    });
    expect(one.body.action.arguments_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(one.body.action.policy.digest).toMatch(/^sha256:/);
    expect(typeof one.body.action.request_fingerprint).toBe("string");
  });

  it("refuses unknown filters (VALIDATION_FAILED) and needs the read scope for keys", async () => {
    expect((await w.o.owner.get(`/orgs/${w.org}/actions?colour=red`)).body.error.code).toBe(
      "VALIDATION_FAILED",
    );
    const key = await managementKey(w.api, w.o, ["receipts:read"]);
    expect((await key("GET", `/orgs/${w.org}/actions`)).body.error).toMatchObject({
      code: "FORBIDDEN",
      details: { required_scope: "read" },
    });
  });
});

describe("POST .../actions/<id>/cancel", () => {
  it("cancels with a CANCELLATION signed by the principal: closure receipt over TASK → CANCELLATION, receipt.created only", async () => {
    const { approvalId, actionId, call } = await pendingCall(w);
    const eventsBefore = await db.pool.query(
      "select count(*)::int as n from events where organization_id = $1",
      [w.org],
    );
    const cancellation = await signCancellation(db.pool, actionId, w.principal);
    const res = await w.o.owner.post(`/orgs/${w.org}/actions/${actionId}/cancel`, { cancellation });
    expect(res.status).toBe(200);
    expect(res.body.action.status).toBe("cancelled");
    expect(res.body.receipt.outcome).toBe("final");
    const events = await db.pool.query(
      "select type, data from events where organization_id = $1 order by created_at",
      [w.org],
    );
    expect(events.rows.length - eventsBefore.rows[0].n).toBe(1);
    expect(events.rows.at(-1)).toMatchObject({
      type: "receipt.created",
      data: { receipt_id: res.body.receipt.id, outcome: "final" },
    });
    const ar = await db.pool.query("select status from approval_requests where id = $1", [approvalId]);
    expect(ar.rows[0].status).toBe("cancelled");
    const { rows } = await db.pool.query("select kind, outcome, bundle from receipts where id = $1", [
      res.body.receipt.id,
    ]);
    expect(rows[0]).toMatchObject({ kind: "closure", outcome: "final" });
    const bundle = JSON.parse(rows[0].bundle.toString("utf8"));
    const verification = verifyBundle(bundle);
    expect(verification.errors).toEqual([]);
    expect(verification.valid).toBe(true);
    expect(bundle.receipt.body.payload.summary.steps.map((s: { type: string }) => s.type)).toEqual([
      "TASK",
      "CANCELLATION",
    ]);
    // The Gateway answers the repeated call as cancelled, with the receipt.
    expect((await w.gw.authorize(w.key, call)).body).toMatchObject({
      allowed: false,
      status: "cancelled",
      receipt_id: res.body.receipt.id,
    });
    // An approver can no longer decide it: the organization cancelled it.
    await refusedUnchanged(
      async () => decide(approvalId, await signDecision(db.pool, approvalId, w.approver.signer, "APPROVAL")),
      409,
      "CANCELLED",
    );
  });

  it("refuses what is not the principal's CANCELLATION of this action, non-admins, keys and finished actions; nothing changes", async () => {
    const { actionId } = await pendingCall(w);
    const other = await pendingCall(w);
    const stranger = nodeSigner(generateSeed());
    await refusedUnchanged(
      async () =>
        w.o.owner.post(`/orgs/${w.org}/actions/${actionId}/cancel`, {
          cancellation: await signCancellation(db.pool, actionId, stranger),
        }),
      422,
      "IDENTITY_MISMATCH",
    );
    const forOther = await signCancellation(db.pool, other.actionId, w.principal);
    await refusedUnchanged(
      () => w.o.owner.post(`/orgs/${w.org}/actions/${actionId}/cancel`, { cancellation: forOther }),
      422,
      "VERIFICATION_FAILED",
    );
    const good = await signCancellation(db.pool, actionId, w.principal);
    const tampered = { ...good, body: { ...good.body, payload: { reason: "changed" } } };
    await refusedUnchanged(
      () => w.o.owner.post(`/orgs/${w.org}/actions/${actionId}/cancel`, { cancellation: tampered }),
      422,
      "VERIFICATION_FAILED",
    );
    const developer = await addMember(w.api, w.o, "developer");
    await refusedUnchanged(
      () => developer.b.post(`/orgs/${w.org}/actions/${actionId}/cancel`, { cancellation: good }),
      403,
      "FORBIDDEN",
    );
    const key = await managementKey(w.api, w.o, ["read"]);
    await refusedUnchanged(
      () => key("POST", `/orgs/${w.org}/actions/${actionId}/cancel`, { cancellation: good }),
      403,
      "FORBIDDEN",
    );
    expect(
      (await w.o.owner.post(`/orgs/${w.org}/actions/${actionId}/cancel`, { cancellation: good })).status,
    ).toBe(200);
    // The same CANCELLATION again is a REPLAY; another one of the cancelled action is CANCELLED.
    await refusedUnchanged(
      () => w.o.owner.post(`/orgs/${w.org}/actions/${actionId}/cancel`, { cancellation: good }),
      409,
      "REPLAY",
    );
    const again = await signCancellation(db.pool, actionId, w.principal);
    await refusedUnchanged(
      () => w.o.owner.post(`/orgs/${w.org}/actions/${actionId}/cancel`, { cancellation: again }),
      409,
      "CANCELLED",
    );
  });

  it("refuses cancelling a lapsed action as EXPIRED and a finished one as INVALID_STATE; nothing changes", async () => {
    const { actionId, approvalId, call } = await pendingCall(w);
    await db.pool.query(
      "update approval_requests set expires_at = now() - interval '1 second' where id = $1",
      [approvalId],
    );
    expect((await w.gw.authorize(w.key, call)).body.status).toBe("expired");
    const lapsed = await signCancellation(db.pool, actionId, w.principal);
    await refusedUnchanged(
      () => w.o.owner.post(`/orgs/${w.org}/actions/${actionId}/cancel`, { cancellation: lapsed }),
      409,
      "EXPIRED",
    );
    // A call the policy allows outright (amount up to 100) is authorized at once: nothing is open to cancel.
    const allowed = await w.gw.authorize(w.key, { tool: w.tool, arguments: { amount: 50 } });
    expect(allowed.body.status).toBe("authorized");
    const done = await signCancellation(db.pool, allowed.body.protected_action_id, w.principal);
    await refusedUnchanged(
      () =>
        w.o.owner.post(`/orgs/${w.org}/actions/${allowed.body.protected_action_id}/cancel`, {
          cancellation: done,
        }),
      409,
      "INVALID_STATE",
    );
  });
});

describe("approval lifetimes (SPEC 2.1, 8.4)", () => {
  /** An agent of its own with a policy and a delegation, and the expiry of its first held call's approval request. */
  async function heldExpiry(
    document: unknown,
    delegationEnds: Date,
  ): Promise<{ expiresAt: number; decidedAt: number }> {
    const agentId = await createAgent(db.pool, w.org);
    await createDelegation(db.pool, w.org, agentId, w.principal, {
      permissions: ["payments.*"],
      expiresAt: delegationEnds,
    });
    await createActivePolicy(db.pool, w.org, document, { agentId });
    const key = await createGatewayKey(db.pool, w.api.keyHashSecret, w.org, agentId, w.o.ownerId);
    const before = Date.now();
    const res = await w.gw.authorize(key.key, { tool: w.tool, arguments: { amount: 300 } });
    expect(res.body.status).toBe("approval_pending");
    const approval = (await w.o.owner.get(`/orgs/${w.org}/approvals/${res.body.approval_request_id}`)).body
      .approval;
    return { expiresAt: Date.parse(approval.expires_at), decidedAt: before };
  }
  const far = () => new Date(Date.now() + 30 * 86_400_000);
  const withRuleTtl = (ttl: number) => ({
    ...refundPolicy,
    rules: refundPolicy.rules.map((r) =>
      r.id === "needs-approval" ? { ...r, approval_ttl_seconds: ttl } : r,
    ),
  });

  it("the organization's default applies when the rule sets none, and a change applies to later requests", async () => {
    const a = await heldExpiry(refundPolicy, far());
    expect(a.expiresAt - a.decidedAt).toBeGreaterThan(86_400_000 - 60_000);
    expect(a.expiresAt - a.decidedAt).toBeLessThanOrEqual(86_400_000 + 60_000);
    expect((await w.o.owner.patch(`/orgs/${w.org}`, { approval_ttl_seconds: 600 })).status).toBe(200);
    try {
      const b = await heldExpiry(refundPolicy, far());
      expect(b.expiresAt - b.decidedAt).toBeGreaterThan(600_000 - 60_000);
      expect(b.expiresAt - b.decidedAt).toBeLessThanOrEqual(600_000 + 60_000);
    } finally {
      await w.o.owner.patch(`/orgs/${w.org}`, { approval_ttl_seconds: 86_400 });
    }
  });

  it("a rule's own approval_ttl_seconds wins over the organization's", async () => {
    const a = await heldExpiry(withRuleTtl(120), far());
    expect(a.expiresAt - a.decidedAt).toBeGreaterThan(120_000 - 60_000);
    expect(a.expiresAt - a.decidedAt).toBeLessThanOrEqual(120_000 + 60_000);
  });

  it("never outlives the agent's delegation", async () => {
    const ends = new Date(Date.now() + 3_600_000);
    const a = await heldExpiry(withRuleTtl(2_592_000), ends);
    expect(a.expiresAt).toBe(ends.getTime());
  });
});

describe("unknown ids and an api without the Gateway signing key", () => {
  const missing = "00000000-0000-4000-8000-000000000000";

  it("answers 404 for unknown actions, approvals and cancellations, changing nothing", async () => {
    await refusedUnchanged(() => w.o.owner.get(`/orgs/${w.org}/actions/${missing}`), 404, "NOT_FOUND");
    await refusedUnchanged(
      () => w.o.owner.post(`/orgs/${w.org}/actions/${missing}/cancel`, { cancellation: {} }),
      404,
      "NOT_FOUND",
    );
    await refusedUnchanged(() => decide(missing, {}), 404, "NOT_FOUND");
  });

  it("answers 503 without Retry-After for decisions and cancellations when no signing key is configured", async () => {
    const bare = await startCloudApi(db, { extra: { keyHashSecret: w.api.keyHashSecret } });
    try {
      const owner = new Browser(bare.base, w.o.owner.ip, DASHBOARD);
      owner.cookies = new Map(w.o.owner.cookies);
      owner.csrf = w.o.owner.csrf;
      const { approvalId, actionId } = await pendingCall(w);
      const cancellation = await signCancellation(db.pool, actionId, w.principal);
      const res = await refusedUnchanged(
        () => owner.post(`/orgs/${w.org}/actions/${actionId}/cancel`, { cancellation }),
        503,
        "SERVICE_UNAVAILABLE",
      );
      expect(res.headers.get("retry-after")).toBeNull();
      const approver = new Browser(bare.base, w.approver.b.ip, DASHBOARD);
      approver.cookies = new Map(w.approver.b.cookies);
      approver.csrf = w.approver.b.csrf;
      const object = await signDecision(db.pool, approvalId, w.approver.signer, "REJECTION");
      await refusedUnchanged(
        () => approver.post(`/orgs/${w.org}/approvals/${approvalId}/decision`, { decision: object }),
        503,
        "SERVICE_UNAVAILABLE",
      );
      // Reading still works.
      expect((await owner.get(`/orgs/${w.org}/actions/${actionId}`)).status).toBe(200);
    } finally {
      await bare.close();
    }
  });
});

describe("a closure receipt that cannot be stored", () => {
  it("records nothing of the rejection or the cancellation (500, the request stays pending)", async () => {
    const { approvalId, actionId } = await pendingCall(w);
    const rejection = await signDecision(db.pool, approvalId, w.approver.signer, "REJECTION");
    const cancellation = await signCancellation(db.pool, actionId, w.principal);
    // The database refuses every new receipt, as a full disk or a broken constraint would.
    await db.pool.query(
      `create function refuse_receipt() returns trigger language plpgsql as $$ begin raise exception 'no room for receipts'; end $$`,
    );
    await db.pool.query(
      "create trigger refuse_receipt before insert on receipts for each row execute function refuse_receipt()",
    );
    try {
      await refusedUnchanged(() => decide(approvalId, rejection), 500, "INTERNAL_ERROR");
      await refusedUnchanged(
        () => w.o.owner.post(`/orgs/${w.org}/actions/${actionId}/cancel`, { cancellation }),
        500,
        "INTERNAL_ERROR",
      );
    } finally {
      await db.pool.query("drop trigger refuse_receipt on receipts");
      await db.pool.query("drop function refuse_receipt()");
    }
    // Once receipts can be stored again the same signed rejection is accepted.
    expect((await decide(approvalId, rejection)).body.approval.status).toBe("rejected");
  });
});
