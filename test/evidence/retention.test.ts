/**
 * Data retention (SPEC 8.7; docs/retention.md) with a controllable clock:
 * exactly which rows go and which stay, open actions untouched, the
 * authorization window respected, 410 EVIDENCE_EXPIRED afterwards, repeats
 * of a kept idempotency key still answered, audit entries with counts, and a
 * shorter period applied by the worker on its next pass.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyRetention } from "../../api/src/retention/retention.js";
import { startEvidenceWorker } from "../../api/src/evidence/worker.js";
import { verifyNewReceipts } from "../../api/src/receipts/issuance-verifier.js";
import { signDecision } from "../fixtures/authorization.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import { evidenceWorld, pendingCall, signCancellation, type EvidenceWorld } from "./world.js";
import { shiftActionTimes } from "../../core/src/actions/fixtures.test-support.js";

const DAY = 86_400_000;
let db: TestDatabase;
let w: EvidenceWorld;
let clock = new Date();
const ids: Record<string, { actionId: string; receiptId?: string; approvalId?: string; call?: unknown }> = {};

async function rowsOf(actionId: string) {
  const q = async (sql: string) => (await db.pool.query(sql, [actionId])).rows;
  return {
    action: (
      await q(
        "select status, policy_effect, policy_version_id, amount::text, arguments_digest, request_fingerprint, idempotency_key, receipt_id, evidence_deleted_at from protected_actions where id = $1",
      )
    )[0],
    objects: (await q("select count(*)::int as n from signed_objects where protected_action_id = $1"))[0]
      .n as number,
    receipt: (
      await q(
        "select id, receipt_object_id, outcome, bundle_sha256, bundle_size, bundle is null as bundle_gone, verification_at_issuance is null as report_gone, verified_at_issuance, issued_at, evidence_deleted_at from receipts where protected_action_id = $1",
      )
    )[0],
    approval: (
      await q(
        "select status, decided_by_kid, decision_object_id from approval_requests where protected_action_id = $1",
      )
    )[0],
  };
}

beforeAll(async () => {
  db = await createTestDatabase();
  w = await evidenceWorld(db, { now: () => clock });
  // A webhook endpoint subscribed to the decision events, so events have deliveries.
  await db.pool.query(
    "insert into webhook_endpoints (organization_id, url, event_types, secret_encrypted) values ($1, 'https://hooks.example.test/', $2, $3)",
    [w.org, ["receipt.created", "action.authorized", "approval.requested", "action.denied"], randomBytes(32)],
  );
  const allowed = await w.gw.authorize(w.key, {
    tool: w.tool,
    arguments: { amount: 40 },
    idempotency_key: "kept-key",
  });
  ids.authorized = {
    actionId: allowed.body.protected_action_id,
    receiptId: allowed.body.receipt_id,
    call: { tool: w.tool, arguments: { amount: 40 }, idempotency_key: "kept-key" },
  };
  const long = await w.gw.authorize(w.key, {
    tool: w.tool,
    arguments: { amount: 41 },
    idempotency_key: "long-window",
  });
  ids.longWindow = { actionId: long.body.protected_action_id, receiptId: long.body.receipt_id };
  const denied = await w.gw.authorize(w.key, {
    tool: w.tool,
    arguments: { amount: 20000 },
    idempotency_key: "denied-key",
  });
  expect(denied.body.status).toBe("denied");
  ids.denied = { actionId: denied.body.protected_action_id };
  const r = await pendingCall(w);
  const rej = await w.approver.b.post(`/orgs/${w.org}/approvals/${r.approvalId}/decision`, {
    decision: await signDecision(db.pool, r.approvalId, w.approver.signer, "REJECTION"),
  });
  ids.rejected = {
    actionId: r.actionId,
    approvalId: r.approvalId,
    receiptId: rej.body.receipt.id,
    call: r.call,
  };
  const c = await pendingCall(w);
  const can = await w.o.owner.post(`/orgs/${w.org}/actions/${c.actionId}/cancel`, {
    cancellation: await signCancellation(db.pool, c.actionId, w.principal),
  });
  ids.cancelled = { actionId: c.actionId, approvalId: c.approvalId, receiptId: can.body.receipt.id };
  const p = await pendingCall(w);
  ids.pending = { actionId: p.actionId, approvalId: p.approvalId };
  const a = await pendingCall(w);
  await w.approver.b.post(`/orgs/${w.org}/approvals/${a.approvalId}/decision`, {
    decision: await signDecision(db.pool, a.approvalId, w.approver.signer, "APPROVAL"),
  });
  ids.approved = { actionId: a.actionId, approvalId: a.approvalId };
  while ((await verifyNewReceipts(db.pool, new Date())) > 0);
  // An authorization whose window runs 40 days: its hosted evidence must wait for the window.
  await shiftActionTimes(db.pool, ids.longWindow!.actionId, { expiresAt: "40 days" });
  // Every delivery was delivered except the rejection's receipt.created, still pending.
  await db.pool.query(
    "update webhook_deliveries set state = 'delivered', delivered_at = now() where organization_id = $1",
    [w.org],
  );
  await db.pool.query(
    `update webhook_deliveries d set state = 'pending', delivered_at = null from events e
      where d.event_id = e.id and e.type = 'receipt.created' and e.data->>'protected_action_id' = $1`,
    [ids.rejected!.actionId],
  );
});
afterAll(async () => {
  await w?.close();
  await db?.drop();
});

describe("data retention", () => {
  it("a change of data_retention_days is audited organization.retention_changed", async () => {
    const res = await w.o.owner.patch(`/orgs/${w.org}`, { data_retention_days: 30 });
    expect(res.status).toBe(200);
    expect(res.body.organization.data_retention).toMatchObject({ organization_days: 30, effective_days: 30 });
    const { rows } = await db.pool.query(
      "select details from audit_log where organization_id = $1 and action = 'organization.retention_changed'",
      [w.org],
    );
    expect(rows.map((r) => r.details)).toEqual([{ from_days: null, to_days: 30 }]);
  });

  it("deletes nothing before the period is over", async () => {
    clock = new Date(Date.now() + 29 * DAY);
    expect((await applyRetention(db.pool, { now: clock, defaultPlan: "enterprise" })).size).toBe(0);
    expect((await rowsOf(ids.authorized!.actionId)).receipt.bundle_gone).toBe(false);
  });

  it("after the period removes exactly what 8.7 lists and keeps the rest", async () => {
    const keptBefore = {
      usage: (
        await db.pool.query("select * from usage_counters where organization_id = $1 order by month, shard", [
          w.org,
        ])
      ).rows,
      delegations: (
        await db.pool.query("select * from delegations where organization_id = $1 order by id", [w.org])
      ).rows,
      identities: (await db.pool.query("select kid, status from identities order by kid")).rows,
      audit: (await db.pool.query("select id from audit_log where organization_id = $1 order by id", [w.org]))
        .rows,
      open: {
        pending: await rowsOf(ids.pending!.actionId),
        approved: await rowsOf(ids.approved!.actionId),
        longWindow: await rowsOf(ids.longWindow!.actionId),
      },
    };
    const openEvents = (
      await db.pool.query(
        "select id from events where data->>'protected_action_id' = any($1::text[]) order by id",
        [[ids.pending!.actionId, ids.approved!.actionId]],
      )
    ).rows;
    expect(openEvents.length).toBeGreaterThan(0);

    clock = new Date(Date.now() + 31 * DAY);
    const done = await applyRetention(db.pool, { now: clock, defaultPlan: "enterprise" });
    const counts = done.get(w.org)!;
    // authorized, denied, rejected, cancelled; never the pending, the approved, nor the long window.
    expect(counts).toMatchObject({ actions: 4, receipts: 3 });

    for (const name of ["authorized", "rejected", "cancelled"] as const) {
      const r = await rowsOf(ids[name]!.actionId);
      expect({ name, objects: r.objects }).toEqual({ name, objects: 0 });
      expect(r.receipt).toMatchObject({
        id: ids[name]!.receiptId,
        bundle_gone: true,
        report_gone: true,
        verified_at_issuance: null,
        evidence_deleted_at: expect.any(Date),
        issued_at: expect.any(Date),
      });
      expect(r.receipt.bundle_sha256).toMatch(/^sha256:/);
      expect(r.receipt.bundle_size).toBeGreaterThan(0);
      expect(r.action).toMatchObject({
        evidence_deleted_at: expect.any(Date),
        policy_version_id: w.versionId,
        receipt_id: ids[name]!.receiptId,
      });
      expect(r.action.arguments_digest).toMatch(/^sha256:/);
    }
    expect((await rowsOf(ids.authorized!.actionId)).action).toMatchObject({
      status: "authorized",
      policy_effect: "allow",
      amount: "40",
      idempotency_key: "kept-key",
    });
    // Approval decisions are kept.
    expect((await rowsOf(ids.rejected!.actionId)).approval).toMatchObject({
      status: "rejected",
      decided_by_kid: w.approver.signer.kid,
    });
    expect((await rowsOf(ids.cancelled!.actionId)).approval).toMatchObject({ status: "cancelled" });
    expect((await rowsOf(ids.denied!.actionId)).action).toMatchObject({
      status: "denied",
      evidence_deleted_at: expect.any(Date),
    });
    // Open actions, their approval requests, and evidence still inside its authorization window: untouched.
    expect({
      pending: await rowsOf(ids.pending!.actionId),
      approved: await rowsOf(ids.approved!.actionId),
      longWindow: await rowsOf(ids.longWindow!.actionId),
    }).toEqual(keptBefore.open);
    // Kept: usage, delegations, identities, the audit log (one entry added).
    expect(
      (
        await db.pool.query("select * from usage_counters where organization_id = $1 order by month, shard", [
          w.org,
        ])
      ).rows,
    ).toEqual(keptBefore.usage);
    expect(
      (await db.pool.query("select * from delegations where organization_id = $1 order by id", [w.org])).rows,
    ).toEqual(keptBefore.delegations);
    expect((await db.pool.query("select kid, status from identities order by kid")).rows).toEqual(
      keptBefore.identities,
    );
    const audit = await db.pool.query(
      "select id, action, actor_type, details from audit_log where organization_id = $1 order by created_at, id",
      [w.org],
    );
    expect(audit.rows.filter((a) => keptBefore.audit.some((b) => b.id === a.id))).toHaveLength(
      keptBefore.audit.length,
    );
    const entry = audit.rows.filter((a) => a.action === "retention.evidence_deleted");
    expect(entry).toHaveLength(1);
    expect(entry[0]).toMatchObject({
      actor_type: "service",
      details: { actions: 4, receipts: 3, retention_days: 30 },
    });
    expect(Object.keys(entry[0].details).sort()).toEqual([
      "actions",
      "cutoff",
      "deliveries",
      "events",
      "receipts",
      "retention_days",
      "signed_objects",
    ]);
    // Events: gone with their deliveries, except one with a pending delivery and those about open actions.
    const events = await db.pool.query(
      "select e.id, e.type, e.data->>'protected_action_id' as action from events e where e.organization_id = $1 order by e.id",
      [w.org],
    );
    const left = events.rows;
    expect(left.filter((e) => e.action === ids.rejected!.actionId).map((e) => e.type)).toEqual([
      "receipt.created",
    ]);
    expect(left.filter((e) => openEvents.some((o) => o.id === e.id))).toHaveLength(openEvents.length);
    expect(
      left.filter((e) => [ids.authorized, ids.denied, ids.cancelled].some((x) => x!.actionId === e.action)),
    ).toEqual([]);
    expect(entry[0].details.events).toBeGreaterThan(0);
    const orphans = await db.pool.query(
      "select count(*)::int as n from webhook_deliveries d where d.organization_id = $1 and not exists (select 1 from events e where e.id = d.event_id)",
      [w.org],
    );
    expect(orphans.rows[0].n).toBe(0);

    // A second pass finds nothing more and audits nothing.
    expect((await applyRetention(db.pool, { now: clock, defaultPlan: "enterprise" })).size).toBe(0);
    expect(
      (
        await db.pool.query(
          "select count(*)::int as n from audit_log where organization_id = $1 and action = 'retention.evidence_deleted'",
          [w.org],
        )
      ).rows[0].n,
    ).toBe(1);
  });

  it("answers 410 EVIDENCE_EXPIRED with the details of 7.2 for detail, bundle and decision check; the list still shows the receipt", async () => {
    const r = await rowsOf(ids.rejected!.actionId);
    for (const path of ["", "/bundle", "/decision-check"]) {
      const res = await w.o.owner.get(`/orgs/${w.org}/receipts/${ids.rejected!.receiptId}${path}`);
      expect(res.status).toBe(410);
      expect(res.body.error).toMatchObject({
        code: "EVIDENCE_EXPIRED",
        details: {
          receipt_id: ids.rejected!.receiptId,
          receipt_object_id: r.receipt.receipt_object_id,
          protected_action_id: ids.rejected!.actionId,
          outcome: "final",
          bundle_sha256: r.receipt.bundle_sha256,
          bundle_size: r.receipt.bundle_size,
          issued_at: r.receipt.issued_at.toISOString(),
          evidence_deleted_at: r.receipt.evidence_deleted_at.toISOString(),
        },
      });
    }
    const list = await w.o.owner.get(`/orgs/${w.org}/receipts?outcome=final`);
    const item = list.body.items.find((x: { id: string }) => x.id === ids.rejected!.receiptId);
    expect(item).toMatchObject({
      verified_at_issuance: null,
      evidence: { status: "deleted", deleted_at: r.receipt.evidence_deleted_at.toISOString() },
    });
    const action = await w.o.owner.get(`/orgs/${w.org}/actions/${ids.rejected!.actionId}`);
    expect(action.body.action).toMatchObject({
      status: "rejected",
      evidence: { status: "deleted" },
      receipt_id: ids.rejected!.receiptId,
    });
  });

  it("a repeated /v1/authorize with the key of such an action returns its outcome and ids and records nothing", async () => {
    const count = async () =>
      (
        await db.pool.query(
          "select (select count(*) from protected_actions) + (select count(*) from receipts) + (select coalesce(sum(protected_actions), 0) from usage_counters) as n",
        )
      ).rows[0].n;
    const before = await count();
    const authorized = await w.gw.authorize(w.key, ids.authorized!.call);
    expect(authorized.body).toMatchObject({
      allowed: true,
      status: "authorized",
      protected_action_id: ids.authorized!.actionId,
      receipt_id: ids.authorized!.receiptId,
    });
    const rejected = await w.gw.authorize(w.key, ids.rejected!.call);
    expect(rejected.body).toMatchObject({
      allowed: false,
      status: "rejected",
      protected_action_id: ids.rejected!.actionId,
      receipt_id: ids.rejected!.receiptId,
    });
    expect(await count()).toBe(before);
  });

  it("the long authorization window's evidence goes once the window is over", async () => {
    clock = new Date(Date.now() + 41 * DAY);
    const done = await applyRetention(db.pool, { now: clock, defaultPlan: "enterprise" });
    expect(done.get(w.org)).toMatchObject({ actions: 1, receipts: 1 });
    expect((await rowsOf(ids.longWindow!.actionId)).receipt.bundle_gone).toBe(true);
    // Open actions are never touched, however old.
    expect((await rowsOf(ids.pending!.actionId)).objects).toBeGreaterThan(0);
    expect((await rowsOf(ids.approved!.actionId)).approval.status).toBe("approved");
  });

  it("a shorter period applies on the worker's next pass", async () => {
    const fresh = await w.gw.authorize(w.key, {
      tool: w.tool,
      arguments: { amount: 42 },
      idempotency_key: `short-${Date.now()}`,
    });
    // Ten days on: inside 30 days, so the worker keeps it.
    clock = new Date(Date.now() + 10 * DAY);
    expect(
      (await applyRetention(db.pool, { now: clock, defaultPlan: "enterprise" })).get(w.org),
    ).toBeUndefined();
    const worker = startEvidenceWorker({
      pool: db.pool,
      defaultPlan: "enterprise",
      now: () => clock,
      log: () => {},
      verifyIntervalMs: 20,
      retentionIntervalMs: 20,
    });
    try {
      expect((await w.o.owner.patch(`/orgs/${w.org}`, { data_retention_days: 5 })).status).toBe(200);
      let gone = false;
      for (let i = 0; i < 500 && !gone; i++) {
        gone = (await rowsOf(fresh.body.protected_action_id)).receipt.bundle_gone;
        if (!gone) await new Promise((r) => setTimeout(r, 20));
      }
      expect(gone).toBe(true);
    } finally {
      await worker.stop();
    }
    const { rows } = await db.pool.query(
      "select details from audit_log where organization_id = $1 and action = 'organization.retention_changed' order by created_at",
      [w.org],
    );
    expect(rows.at(-1)!.details).toEqual({ from_days: 30, to_days: 5 });
  });
});
