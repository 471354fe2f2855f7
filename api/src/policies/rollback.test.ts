/**
 * Rollback, emergency stop and the closing of covered open actions through
 * the real server on real PostgreSQL (SPEC 3.3, 3.6, 7.2): every refusal
 * code with nothing changed, each `open_actions` value, the supersede worker
 * for decisions recorded just after a rollback, and a Gateway hand-out made
 * during a rollback that must not authorize a covered action.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decideApproval } from "@countersign/core/approvals";
import type { GatewayIdentity } from "@countersign/core/identities";
import { handOutApproved } from "../../../core/src/decision/hand-out.js";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { createAgent } from "../../../test/fixtures/organization.js";
import { startCloudApi, type Browser, type CloudApi } from "../../../test/fixtures/cloud-api.js";
import {
  recordAction,
  type RecordedAction,
  reportGateway,
  signedInMember,
} from "../../../test/fixtures/policies.js";
import {
  activate,
  expectError,
  expectRefusedUnchanged,
  newOrganization,
  newPolicy,
  newVersion,
  rev2Doc,
  snapshot,
  v1Doc,
  v2Doc,
} from "../../../test/fixtures/policy-rollout.js";
import { startSupersedeWorker, supersedePass } from "./supersede-worker.js";

let db: TestDatabase;
let api: CloudApi;
let owner: Browser;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startCloudApi(db);
  owner = api.browser();
  await owner.signUpAndIn(api.smtp);
});
afterAll(async () => {
  await api?.close();
  await db?.drop();
});

/** A policy with v1 superseded by v2 (active), an agent using it, and the organization. */
async function rolledForward() {
  const org = await newOrganization(api, owner);
  const agent = await createAgent(db.pool, org);
  const { policyId, versionId: v1 } = await newPolicy(owner, org, v1Doc);
  await db.pool.query("update agents set policy_id = $2 where id = $1", [agent, policyId]);
  expect((await activate(owner, org, policyId, v1)).status).toBe(200);
  const v2 = await newVersion(owner, org, policyId, v2Doc);
  expect((await activate(owner, org, policyId, v2)).status).toBe(200);
  return { org, agent, policyId, v1, v2 };
}

const closed = { status: "expired", decision_code: "SUPERSEDED", approval: "superseded" };
const rollback = (org: string, policyId: string, body: unknown) =>
  owner.post(`/orgs/${org}/policies/${policyId}/rollback`, body);
const statusOf = async (id: string) =>
  (
    await db.pool.query(
      "select pa.status, pa.decision_code, ar.status as approval from protected_actions pa left join approval_requests ar on ar.id = pa.approval_request_id where pa.id = $1",
      [id],
    )
  ).rows[0];

describe("rollback", () => {
  it("creates an exact copy of the superseded version with the note stored, activates it, audits both entries and inserts policy.activated", async () => {
    const { org, policyId, v1, v2 } = await rolledForward();
    const res = await rollback(org, policyId, { expected_active_version_id: v2, note: "v2 broke refunds" });
    expect(res.status, res.text).toBe(200);
    const copy = res.body.version;
    expect(copy).toMatchObject({
      number: 3,
      status: "active",
      origin: "rollback",
      source_version_id: v1,
      note: "v2 broke refunds",
    });
    expect(res.body.restored_version.id).toBe(v1);
    const rows = (
      await db.pool.query(
        "select id, status, digest, document from policy_versions where policy_id = $1 order by number",
        [policyId],
      )
    ).rows;
    expect(rows.map((r) => r.status)).toEqual(["superseded", "superseded", "active"]);
    expect(rows[2].digest).toBe(rows[0].digest);
    expect(rows[2].document).toEqual(rows[0].document);
    const audits = (
      await db.pool.query(
        "select action, details from audit_log where target_id = $1 order by id desc limit 2",
        [policyId],
      )
    ).rows;
    expect(audits.map((a) => a.action).sort()).toEqual(["policy.activated", "policy.rolled_back"]);
    expect(audits.find((a) => a.action === "policy.activated")!.details).toMatchObject({
      trigger: "rollback",
      version_id: copy.id,
    });
    const event = (
      await db.pool.query(
        "select data from events where organization_id = $1 order by created_at desc limit 1",
        [org],
      )
    ).rows[0].data;
    expect(event).toMatchObject({
      trigger: "rollback",
      version_id: copy.id,
      restored_version_id: v1,
      previous_version_id: v2,
    });
    // The default target is the most recently activated superseded version: now v2.
    const again = await rollback(org, policyId, { expected_active_version_id: copy.id });
    expect(again.body.restored_version.id).toBe(v2);
  });

  it("refuses ACTIVE_VERSION_CHANGED, NOTHING_TO_ROLL_BACK, INVALID_STATE, POLICY_NOT_FOUND and POLICY_INVALID, changing nothing", async () => {
    const org = await newOrganization(api, owner);
    const fresh = await newPolicy(owner, org, v1Doc);
    expect((await activate(owner, org, fresh.policyId, fresh.versionId)).status).toBe(200);
    const f0 = await snapshot(db.pool, fresh.policyId);
    await expectRefusedUnchanged(
      db.pool,
      fresh.policyId,
      f0,
      await rollback(org, fresh.policyId, { expected_active_version_id: fresh.versionId }),
      409,
      "NOTHING_TO_ROLL_BACK",
    );

    const { org: o2, policyId, v1, v2 } = await rolledForward();
    const draft = await newVersion(owner, o2, policyId, rev2Doc);
    const before = await snapshot(db.pool, policyId);
    const rb = (body: unknown) => owner.post(`/orgs/${o2}/policies/${policyId}/rollback`, body);
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await rb({ expected_active_version_id: v1 }),
      409,
      "ACTIVE_VERSION_CHANGED",
    );
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await rb({ expected_active_version_id: null }),
      409,
      "ACTIVE_VERSION_CHANGED",
    );
    await expectRefusedUnchanged(db.pool, policyId, before, await rb({}), 400, "VALIDATION_FAILED");
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await rb({ expected_active_version_id: v2, to_version_id: draft }),
      409,
      "INVALID_STATE",
    );
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await rb({ expected_active_version_id: v2, to_version_id: v2 }),
      409,
      "INVALID_STATE",
    );
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await rb({ expected_active_version_id: v2, to_version_id: "00000000-0000-4000-8000-000000000001" }),
      422,
      "POLICY_NOT_FOUND",
    );
    // Two refusals at once: the expected version answers first.
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await rb({ expected_active_version_id: v1, to_version_id: draft }),
      409,
      "ACTIVE_VERSION_CHANGED",
    );
    await db.pool.query("update policy_versions set document = '{\"rules\": 7}' where id = $1", [v1]);
    const broken = await snapshot(db.pool, policyId);
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      broken,
      await rb({ expected_active_version_id: v2, open_actions: "supersede_all" }),
      422,
      "POLICY_INVALID",
    );
    // An admin may roll back, a developer may not.
    const dev = await signedInMember(api, db.pool, o2, "developer");
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      broken,
      await dev.b.post(`/orgs/${o2}/policies/${policyId}/rollback`, { expected_active_version_id: v2 }),
      403,
      "FORBIDDEN",
    );
  });

  it("bypasses the language gate with warning GATEWAYS_NOT_UPGRADED, clears the shadow when it was the restored version, and leaves observe windows open", async () => {
    await db.pool.query("delete from gateway_instances");
    await reportGateway(db.pool, { revisions: [1, 2] });
    const org = await newOrganization(api, owner);
    const agent = await createAgent(db.pool, org);
    const { policyId, versionId: r2 } = await newPolicy(owner, org, rev2Doc);
    await db.pool.query("update agents set policy_id = $2 where id = $1", [agent, policyId]);
    expect((await activate(owner, org, policyId, r2)).status).toBe(200);
    const v2 = await newVersion(owner, org, policyId, v1Doc);
    expect((await activate(owner, org, policyId, v2)).status).toBe(200);
    expect(
      (await owner.request("PUT", `/orgs/${org}/policies/${policyId}/shadow`, { version_id: r2 })).status,
    ).toBe(200);
    const window = (
      await db.pool.query(
        "insert into observe_windows (organization_id, agent_id, policy_id, hours, ends_at) values ($1, $2, $3, 1, now() + interval '1 hour') returning id",
        [org, agent, policyId],
      )
    ).rows[0].id;
    await db.pool.query("delete from gateway_instances");
    const res = await rollback(org, policyId, { expected_active_version_id: v2 });
    expect(res.status, res.text).toBe(200);
    expect(res.body.warnings).toEqual([
      expect.objectContaining({
        code: "GATEWAYS_NOT_UPGRADED",
        language_gate: expect.objectContaining({ reason: "no_recent_gateway" }),
      }),
    ]);
    expect(res.body.shadow_cleared).toBe(true);
    expect(
      (await db.pool.query("select shadow_version_id from policies where id = $1", [policyId])).rows[0]
        .shadow_version_id,
    ).toBeNull();
    expect(
      (await db.pool.query("select ended_at from observe_windows where id = $1", [window])).rows[0].ended_at,
    ).toBeNull();
  });
});

describe("open actions", () => {
  /** Open and closed actions under v1 and v2, and of an agent moved into the policy. */
  async function withOpenActions() {
    const base = await rolledForward();
    const { org, agent, policyId, v1, v2 } = base;
    const other = await newPolicy(owner, org, v1Doc);
    const moved = await createAgent(db.pool, org);
    const stays = await createAgent(db.pool, org, {});
    await db.pool.query("update agents set policy_id = $2 where id = any($1)", [
      [moved, stays],
      other.policyId,
    ]);
    const act = (o: Partial<RecordedAction>) =>
      recordAction(db.pool, { organizationId: org, agentId: agent, policyId, versionId: v1, ...o });
    const ids = {
      pendingV1: await act({ status: "pending_approval", effect: "require_approval", approval: "pending" }),
      approvedV1: await act({ status: "approved", effect: "require_approval", approval: "approved" }),
      authorizedCaller: await act({ status: "authorized", effect: "allow", execution: "caller" }),
      allowedGateway: await act({ status: "authorized", effect: "allow", execution: "gateway" }),
      pendingV2: await act({
        versionId: v2,
        status: "pending_approval",
        effect: "require_approval",
        approval: "pending",
      }),
      movedIn: await recordAction(db.pool, {
        organizationId: org,
        agentId: moved,
        policyId: other.policyId,
        versionId: other.versionId,
        status: "pending_approval",
        approval: "pending",
      }),
      otherPolicy: await recordAction(db.pool, {
        organizationId: org,
        agentId: stays,
        policyId: other.policyId,
        versionId: other.versionId,
        status: "pending_approval",
        approval: "pending",
      }),
      denied: await act({ status: "denied" }),
    };
    // The agent moves into the policy after its decision.
    await db.pool.query("update agents set policy_id = $2 where id = $1", [moved, policyId]);
    return { ...base, ids };
  }
  it("keep closes nothing", async () => {
    const { org, policyId, v2, ids } = await withOpenActions();
    const before = await Promise.all(Object.values(ids).map(statusOf));
    const res = await rollback(org, policyId, { expected_active_version_id: v2, open_actions: "keep" });
    expect(res.body.closed_actions).toBe(0);
    expect(await Promise.all(Object.values(ids).map(statusOf))).toEqual(before);
    expect(
      (
        await db.pool.query("select count(*)::int as n from policy_supersessions where policy_id = $1", [
          policyId,
        ])
      ).rows[0].n,
    ).toBe(0);
  });

  it("supersede_pending closes the pending approvals of earlier versions and of agents moved in, at once", async () => {
    const { org, policyId, v2, ids } = await withOpenActions();
    const res = await rollback(org, policyId, {
      expected_active_version_id: v2,
      open_actions: "supersede_pending",
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.closed_actions).toBe(3);
    expect(await statusOf(ids.pendingV1)).toEqual(closed);
    expect(await statusOf(ids.pendingV2)).toEqual(closed);
    expect(await statusOf(ids.movedIn)).toEqual(closed);
    expect(await statusOf(ids.approvedV1)).toMatchObject({ status: "approved", approval: "approved" });
    expect(await statusOf(ids.allowedGateway)).toMatchObject({ status: "authorized" });
    expect(await statusOf(ids.otherPolicy)).toMatchObject({
      status: "pending_approval",
      approval: "pending",
    });
    // Closing writes no webhook event (SPEC 6.1): only the activation's.
    expect(
      (
        await db.pool.query(
          "select type from events where organization_id = $1 and created_at > now() - interval '1 minute' and type <> 'policy.activated'",
          [org],
        )
      ).rows,
    ).toEqual([]);
  });

  it("supersede_all also closes approved and allowed calls not yet executed, never a decision-only authorization", async () => {
    const { org, policyId, v2, ids } = await withOpenActions();
    const res = await rollback(org, policyId, {
      expected_active_version_id: v2,
      open_actions: "supersede_all",
    });
    expect(res.body.closed_actions).toBe(5);
    for (const id of [ids.pendingV1, ids.pendingV2, ids.movedIn, ids.approvedV1])
      expect(await statusOf(id)).toEqual(closed);
    expect(await statusOf(ids.allowedGateway)).toEqual({
      status: "expired",
      decision_code: "SUPERSEDED",
      approval: null,
    });
    expect(await statusOf(ids.authorizedCaller)).toMatchObject({ status: "authorized", decision_code: null });
    expect(await statusOf(ids.otherPolicy)).toMatchObject({ status: "pending_approval" });
    expect(await statusOf(ids.denied)).toMatchObject({ status: "denied" });
    // A person deciding a closed request is told the version was replaced.
    const request = (
      await db.pool.query("select approval_request_id as id from protected_actions where id = $1", [
        ids.pendingV1,
      ])
    ).rows[0].id;
    await expect(
      decideApproval(db.pool, {
        organizationId: org,
        approvalRequestId: request,
        userId: "00000000-0000-4000-8000-000000000000",
        object: {},
        identity: {} as GatewayIdentity,
      }),
    ).rejects.toMatchObject({
      code: "POLICY_VERSION_REPLACED",
    });
  });

  it("the worker closes covered actions recorded just after the rollback, and completes after the grace period", async () => {
    const { org, agent, policyId, v2 } = await rolledForward();
    const res = await rollback(org, policyId, {
      expected_active_version_id: v2,
      open_actions: "supersede_pending",
    });
    expect(res.status).toBe(200);
    // A decision that read v2 just before the rollback and committed just after it.
    const straggler = await recordAction(db.pool, {
      organizationId: org,
      agentId: agent,
      policyId,
      versionId: v2,
      status: "pending_approval",
      approval: "pending",
      minutesAgo: 0,
    });
    const current = await recordAction(db.pool, {
      organizationId: org,
      agentId: agent,
      policyId,
      versionId: res.body.version.id,
      status: "pending_approval",
      approval: "pending",
      minutesAgo: 0,
    });
    for (let i = 0; i < 20 && (await statusOf(straggler)).status !== "expired"; i++)
      await supersedePass(db.pool, { graceSeconds: 3600 });
    expect(await statusOf(straggler)).toEqual(closed);
    expect(await statusOf(current)).toMatchObject({ status: "pending_approval" });
    const open = async () =>
      (await db.pool.query("select completed_at from policy_supersessions where policy_id = $1", [policyId]))
        .rows[0].completed_at;
    expect(await open()).toBeNull();
    for (let i = 0; i < 20 && (await open()) === null; i++) await supersedePass(db.pool, { graceSeconds: 0 });
    expect(await open()).not.toBeNull();
  });

  it("the running worker (as api/src/start.ts starts it) closes a straggler on its own", async () => {
    const { org, agent, policyId, v2 } = await rolledForward();
    expect(
      (await rollback(org, policyId, { expected_active_version_id: v2, open_actions: "supersede_all" }))
        .status,
    ).toBe(200);
    const straggler = await recordAction(db.pool, {
      organizationId: org,
      agentId: agent,
      policyId,
      versionId: v2,
      status: "approved",
      approval: "approved",
      minutesAgo: 0,
    });
    const worker = startSupersedeWorker(db.pool, () => undefined, { intervalMs: 20 });
    try {
      await expect
        .poll(async () => (await statusOf(straggler)).status, { timeout: 20_000, interval: 50 })
        .toBe("expired");
    } finally {
      await worker.stop();
    }
  });

  it("POST supersede-open-actions closes what a keep rollback left open", async () => {
    const { org, policyId, v2, ids } = await withOpenActions();
    expect((await rollback(org, policyId, { expected_active_version_id: v2 })).status).toBe(200);
    const res = await owner.post(`/orgs/${org}/policies/${policyId}/supersede-open-actions`, {
      scope: "supersede_pending",
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.closed_actions).toBe(3);
    expect(await statusOf(ids.pendingV1)).toEqual(closed);
    expect(await statusOf(ids.approvedV1)).toMatchObject({ status: "approved" });
    expect(
      (await owner.post(`/orgs/${org}/policies/${policyId}/supersede-open-actions`)).body.closed_actions,
    ).toBe(2);
  });

  it("a Gateway hand-out made during the rollback waits for it and then does not authorize the covered action", async () => {
    const { org, agent, policyId, v2 } = await rolledForward();
    const action = await recordAction(db.pool, {
      organizationId: org,
      agentId: agent,
      policyId,
      versionId: v2,
      status: "approved",
      effect: "require_approval",
      approval: "approved",
    });
    // Hold the policy row as a concurrent reader would, so the rollback stops right after locking the open actions.
    const holder = await db.pool.connect();
    try {
      await holder.query("begin");
      await holder.query("select 1 from policies where id = $1 for share", [policyId]);
      const waiting = (pattern: string) =>
        expect
          .poll(
            async () =>
              (
                await db.pool.query(
                  "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like $1",
                  [pattern],
                )
              ).rows[0].n,
            { timeout: 10_000 },
          )
          .toBe(1);
      const rolling = rollback(org, policyId, {
        expected_active_version_id: v2,
        open_actions: "supersede_all",
      });
      await waiting("%from policies where id = $1 and organization_id = $2 for update%");
      // The Gateway hands out the approved call now: it must wait for the rollback's lock on the action.
      const handing = handOutApproved(db.pool, {} as GatewayIdentity, action, new Date());
      await waiting("%for update of pa for share of d, p%");
      await holder.query("commit");
      const [rb, out] = await Promise.all([rolling, handing]);
      expect(rb.status, rb.text).toBe(200);
      expect(out).toMatchObject({
        ok: true,
        view: { status: "expired", decisionCode: "SUPERSEDED", receipt: null },
      });
      expect(
        (
          await db.pool.query("select count(*)::int as n from receipts where protected_action_id = $1", [
            action,
          ])
        ).rows[0].n,
      ).toBe(0);
    } finally {
      holder.release();
    }
  });
});

describe("emergency stop", () => {
  it("closes pending approvals and approved calls, ends observe windows, refuses all but a rollback with EMERGENCY_ACTIVE, and the rollback ends it", async () => {
    const { org, agent, policyId, v2 } = await rolledForward();
    const pending = await recordAction(db.pool, {
      organizationId: org,
      agentId: agent,
      policyId,
      versionId: v2,
      status: "pending_approval",
      approval: "pending",
    });
    const approved = await recordAction(db.pool, {
      organizationId: org,
      agentId: agent,
      policyId,
      versionId: v2,
      status: "approved",
      approval: "approved",
    });
    const window = (
      await db.pool.query(
        "insert into observe_windows (organization_id, agent_id, policy_id, hours, ends_at) values ($1, $2, $3, 1, now() + interval '1 hour') returning id",
        [org, agent, policyId],
      )
    ).rows[0].id;
    const stop = await owner.post(`/orgs/${org}/policies/${policyId}/emergency`);
    expect(stop.status, stop.text).toBe(200);
    expect(stop.body).toMatchObject({ closed_actions: 2, ended_observe_windows: 1 });
    expect(await statusOf(pending)).toEqual(closed);
    expect(await statusOf(approved)).toEqual(closed);
    expect(
      (await db.pool.query("select end_reason from observe_windows where id = $1", [window])).rows[0]
        .end_reason,
    ).toBe("policy_emergency");
    const request = (
      await db.pool.query("select approval_request_id as id from protected_actions where id = $1", [pending])
    ).rows[0].id;
    await expect(
      decideApproval(db.pool, {
        organizationId: org,
        approvalRequestId: request,
        userId: "00000000-0000-4000-8000-000000000000",
        object: {},
        identity: {} as GatewayIdentity,
      }),
    ).rejects.toMatchObject({
      code: "POLICY_VERSION_REPLACED",
    });

    const v3 = await newVersion(owner, org, policyId, rev2Doc);
    const before = await snapshot(db.pool, policyId);
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await activate(owner, org, policyId, v3),
      409,
      "EMERGENCY_ACTIVE",
    );
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await owner.request("PUT", `/orgs/${org}/policies/${policyId}/shadow`, { version_id: v3 }),
      409,
      "EMERGENCY_ACTIVE",
    );
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await owner.post(`/orgs/${org}/policies/${policyId}/emergency`),
      409,
      "EMERGENCY_ACTIVE",
    );
    const status = await owner.get(`/orgs/${org}/policy-status`);
    expect(status.body.items[0]).toMatchObject({ policy_id: policyId, emergency_stopped: true });

    const rb = await rollback(org, policyId, { expected_active_version_id: v2 });
    expect(rb.status, rb.text).toBe(200);
    expect(
      (await db.pool.query("select emergency_stopped_at from policies where id = $1", [policyId])).rows[0]
        .emergency_stopped_at,
    ).toBeNull();
    expectError(
      await owner.post(`/orgs/${org}/policies/${policyId}/emergency`, { reason: "x" }),
      400,
      "VALIDATION_FAILED",
    );
  });
});
