/**
 * Observe windows through the real server (SPEC 3.9, 8.5): start by Admins
 * and each refusal (OBSERVE_DISABLED, OBSERVE_LIVE_NOT_ALLOWED,
 * OBSERVE_WINDOW_TOO_LONG, CONFIRMATION_MISMATCH, REASON_REJECTED,
 * EMERGENCY_ACTIVE, OBSERVE_ACTIVE) changing nothing; end, end-all, expiry,
 * the owner's settings changes ending windows in the same transaction; list,
 * read and report.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { startCloudApi, type CloudApi } from "../../../test/fixtures/cloud-api.js";
import {
  addMember,
  createPolicy,
  expectRefusedUnchanged,
  managementKey,
  orgWithOwner,
  type OrgWithOwner,
} from "../../../test/fixtures/configuration.js";
import { startObserveCloser } from "./closer.js";
import { looksLikeSecret } from "./secret-like.js";

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

async function setup(
  settings: { observe_max_hours?: number; observe_live_opt_in?: boolean } = { observe_max_hours: 24 },
) {
  const o = await orgWithOwner(api);
  if (Object.keys(settings).length)
    expect((await o.owner.patch(`/orgs/${o.org}`, settings)).status).toBe(200);
  const agent = (await o.owner.post(`/orgs/${o.org}/agents`, { name: "observed bot" })).body.agent;
  return { o, agent };
}

const start = (o: OrgWithOwner, agentId: string, body: Record<string, unknown>) =>
  o.owner.post(`/orgs/${o.org}/agents/${agentId}/observe`, {
    hours: 2,
    confirmation: "observed bot",
    ...body,
  });

describe("starting a window", () => {
  it("opens one window for the agent, audited, readable by members", async () => {
    const { o, agent } = await setup();
    const res = await start(o, agent.id, { reason: "trying the new payments policy" });
    expect(res.status).toBe(201);
    const w = res.body.observe_window;
    expect(w).toMatchObject({
      agent: { id: agent.id, name: "observed bot" },
      state: "open",
      hours: 2,
      live: false,
      reason: "trying the new payments policy",
    });
    expect(Date.parse(w.ends_at) - Date.parse(w.started_at)).toBe(2 * 3_600_000);
    const viewer = await addMember(api, o, "viewer");
    expect((await viewer.b.get(`/orgs/${o.org}/agents/${agent.id}/observe`)).body.open.id).toBe(w.id);
    expect((await viewer.b.get(`/orgs/${o.org}/observe-windows/${w.id}`)).body.observe_window.state).toBe(
      "open",
    );
    const audit = await db.pool.query("select action, details from audit_log where target_id = $1", [w.id]);
    expect(audit.rows).toEqual([
      {
        action: "observe_window.started",
        details: { agent_id: agent.id, hours: 2, live: false, reason_given: true },
      },
    ]);
  });

  it("refuses each rule of 3.9 with its code and changes nothing", async () => {
    const off = await setup({});
    await expectRefusedUnchanged(db.pool, () => start(off.o, off.agent.id, {}), 403, "OBSERVE_DISABLED");
    const { o, agent } = await setup({ observe_max_hours: 4 });
    await expectRefusedUnchanged(
      db.pool,
      () => start(o, agent.id, { live: true }),
      403,
      "OBSERVE_LIVE_NOT_ALLOWED",
    );
    await expectRefusedUnchanged(
      db.pool,
      () => start(o, agent.id, { hours: 5 }),
      400,
      "OBSERVE_WINDOW_TOO_LONG",
    );
    await expectRefusedUnchanged(db.pool, () => start(o, agent.id, { hours: 169 }), 400, "VALIDATION_FAILED");
    await expectRefusedUnchanged(
      db.pool,
      () => start(o, agent.id, { confirmation: "Observed bot" }),
      422,
      "CONFIRMATION_MISMATCH",
    );
    await expectRefusedUnchanged(
      db.pool,
      () =>
        start(o, agent.id, {
          reason: "key is svc_live_abcdefghijkl_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        }),
      400,
      "REASON_REJECTED",
    );
    const policy = await createPolicy(db.pool, o.org);
    await db.pool.query("update agents set policy_id = $2 where id = $1", [agent.id, policy]);
    await db.pool.query("update policies set emergency_stopped_at = now() where id = $1", [policy]);
    await expectRefusedUnchanged(db.pool, () => start(o, agent.id, {}), 409, "EMERGENCY_ACTIVE");
    await db.pool.query("update policies set emergency_stopped_at = null where id = $1", [policy]);
    expect((await start(o, agent.id, {})).status).toBe(201);
    await expectRefusedUnchanged(db.pool, () => start(o, agent.id, { hours: 1 }), 409, "OBSERVE_ACTIVE");
    // live windows once the owner opted in
    const other = (await o.owner.post(`/orgs/${o.org}/agents`, { name: "live bot" })).body.agent;
    await o.owner.patch(`/orgs/${o.org}`, { observe_live_opt_in: true });
    expect(
      (await start(o, other.id, { live: true, confirmation: "live bot" })).body.observe_window.live,
    ).toBe(true);
  });

  it("is for Admins only, never for keys; developers and agents:write keys may end windows", async () => {
    const { o, agent } = await setup();
    const dev = await addMember(api, o, "developer");
    const key = await managementKey(api, o, ["agents:write", "read"]);
    await expectRefusedUnchanged(
      db.pool,
      () =>
        dev.b.post(`/orgs/${o.org}/agents/${agent.id}/observe`, { hours: 1, confirmation: "observed bot" }),
      403,
      "FORBIDDEN",
    );
    await expectRefusedUnchanged(
      db.pool,
      () =>
        key("POST", `/orgs/${o.org}/agents/${agent.id}/observe`, { hours: 1, confirmation: "observed bot" }),
      403,
      "FORBIDDEN",
    );
    const admin = await addMember(api, o, "admin");
    expect(
      (
        await admin.b.post(`/orgs/${o.org}/agents/${agent.id}/observe`, {
          hours: 1,
          confirmation: "observed bot",
        })
      ).status,
    ).toBe(201);
    const ended = await key("POST", `/orgs/${o.org}/agents/${agent.id}/observe/end`);
    expect(ended.body.observe_window).toMatchObject({ state: "ended", end_reason: "ended", ended_by: null });
    await expectRefusedUnchanged(
      db.pool,
      () => dev.b.post(`/orgs/${o.org}/agents/${agent.id}/observe/end`),
      404,
      "NO_OPEN_WINDOW",
    );
  });

  it("checks the reason heuristics on typical secrets and ordinary sentences", () => {
    for (const s of [
      "Bearer abcdefghijklmnopqrstuvwxyz123456",
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig",
      "AKIAIOSFODNN7EXAMPLE",
      "password: hunter2hunter2",
      "-----BEGIN PRIVATE KEY-----",
      "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    ]) {
      expect(looksLikeSecret(s)).toBe(true);
    }
    for (const s of [
      "testing the refund rules for a week",
      "ticket OPS-1234: observe before enforcing",
      "see https://example.com/runbooks/observe",
    ]) {
      expect(looksLikeSecret(s)).toBe(false);
    }
  });
});

describe("ending windows", () => {
  it("ends one agent's window, then all windows of the organization", async () => {
    const { o, agent } = await setup();
    const b2 = (await o.owner.post(`/orgs/${o.org}/agents`, { name: "b2" })).body.agent;
    await start(o, agent.id, {});
    await start(o, b2.id, { confirmation: "b2" });
    const one = await o.owner.post(`/orgs/${o.org}/agents/${agent.id}/observe/end`);
    expect(one.body.observe_window).toMatchObject({
      state: "ended",
      end_reason: "ended",
      ended_by: o.ownerId,
    });
    const all = await o.owner.post(`/orgs/${o.org}/observe/end-all`);
    expect(all.body.ended.map((w: { agent: { id: string } }) => w.agent.id)).toEqual([b2.id]);
    expect((await o.owner.post(`/orgs/${o.org}/observe/end-all`)).body.ended).toEqual([]);
    // a new window may start after the end: windows are not extended, they are replaced
    expect((await start(o, agent.id, {})).status).toBe(201);
  });

  it("closes a window that ran out as expired and lets a new one start", async () => {
    const { o, agent } = await setup();
    const w = (await start(o, agent.id, {})).body.observe_window;
    await db.pool.query(
      "update observe_windows set started_at = started_at - interval '3 hours', ends_at = ends_at - interval '3 hours' where id = $1",
      [w.id],
    );
    const read = (await o.owner.get(`/orgs/${o.org}/observe-windows/${w.id}`)).body.observe_window;
    expect(read).toMatchObject({ state: "ended", end_reason: "expired", ended_at: read.ends_at });
    expect((await o.owner.get(`/orgs/${o.org}/agents/${agent.id}/observe`)).body.open).toBeNull();
    expect((await start(o, agent.id, {})).status).toBe(201);
  });

  it("the background closer of every api process ends windows that ran out, audited as the service's", async () => {
    const { o, agent } = await setup();
    const w = (await start(o, agent.id, {})).body.observe_window;
    await db.pool.query(
      "update observe_windows set started_at = started_at - interval '3 hours', ends_at = ends_at - interval '3 hours' where id = $1",
      [w.id],
    );
    const closer = startObserveCloser(db.pool, () => undefined, 20);
    try {
      for (let i = 0; i < 200; i++) {
        const { rows } = await db.pool.query("select end_reason from observe_windows where id = $1", [w.id]);
        if (rows[0].end_reason) break;
        await new Promise((r) => setTimeout(r, 25));
      }
    } finally {
      await closer.stop();
    }
    const { rows } = await db.pool.query(
      "select end_reason, ended_at = ends_at as at_end from observe_windows where id = $1",
      [w.id],
    );
    expect(rows[0]).toEqual({ end_reason: "expired", at_end: true });
    const audit = await db.pool.query(
      "select actor_type, details from audit_log where target_id = $1 and action = 'observe_window.ended'",
      [w.id],
    );
    expect(audit.rows).toEqual([{ actor_type: "service", details: { reason: "expired" } }]);
  });

  it("ends windows when the owner turns observe off, lowers the longest window below them, or withdraws live opt-in", async () => {
    const { o, agent } = await setup({ observe_max_hours: 24, observe_live_opt_in: true });
    const short = (await o.owner.post(`/orgs/${o.org}/agents`, { name: "short" })).body.agent;
    const live = (await o.owner.post(`/orgs/${o.org}/agents`, { name: "live" })).body.agent;
    const long = (await start(o, agent.id, { hours: 10 })).body.observe_window;
    const shortW = (await start(o, short.id, { hours: 2, confirmation: "short" })).body.observe_window;
    const liveW = (await start(o, live.id, { hours: 1, live: true, confirmation: "live" })).body
      .observe_window;
    const state = async (id: string) =>
      (await db.pool.query("select end_reason from observe_windows where id = $1", [id])).rows[0].end_reason;

    // lowering to 5 hours ends the 10-hour window only, in the same request
    expect((await o.owner.patch(`/orgs/${o.org}`, { observe_max_hours: 5 })).status).toBe(200);
    expect([await state(long.id), await state(shortW.id), await state(liveW.id)]).toEqual([
      "settings_changed",
      null,
      null,
    ]);
    // withdrawing live opt-in ends the live window
    await o.owner.patch(`/orgs/${o.org}`, { observe_live_opt_in: false });
    expect([await state(shortW.id), await state(liveW.id)]).toEqual([null, "settings_changed"]);
    // raising the longest window ends nothing; turning observe off ends the rest
    await o.owner.patch(`/orgs/${o.org}`, { observe_max_hours: 48 });
    expect(await state(shortW.id)).toBeNull();
    await o.owner.patch(`/orgs/${o.org}`, { observe_max_hours: 0 });
    expect(await state(shortW.id)).toBe("settings_changed");
    const audits = await db.pool.query(
      "select count(*)::int as n from audit_log where organization_id = $1 and action = 'observe_window.ended' and details->>'reason' = 'settings_changed'",
      [o.org],
    );
    expect(audits.rows[0].n).toBe(3);
  });

  it("a refused settings change ends nothing", async () => {
    const { o, agent } = await setup({ observe_max_hours: 24 });
    await start(o, agent.id, { hours: 10 });
    const admin = await addMember(api, o, "admin");
    await expectRefusedUnchanged(
      db.pool,
      () => admin.b.patch(`/orgs/${o.org}`, { observe_max_hours: 0 }),
      403,
      "OWNER_REQUIRED",
    );
    await expectRefusedUnchanged(
      db.pool,
      () => o.owner.patch(`/orgs/${o.org}`, { observe_max_hours: 0, approval_ttl_seconds: 5 }),
      400,
      "VALIDATION_FAILED",
    );
  });
});

describe("lists and reports", () => {
  it("shows the 20 most recent windows per agent and pages the organization's list", async () => {
    const { o, agent } = await setup();
    const rows = [];
    for (let i = 0; i < 22; i++)
      rows.push(
        `('${o.org}', '${agent.id}', now() - interval '${30 - i} days', 1, now() - interval '${30 - i} days' + interval '1 hour', now() - interval '${30 - i} days' + interval '1 hour', 'expired')`,
      );
    await db.pool.query(
      `insert into observe_windows (organization_id, agent_id, started_at, hours, ends_at, ended_at, end_reason) values ${rows.join(",")}`,
    );
    const shown = (await o.owner.get(`/orgs/${o.org}/agents/${agent.id}/observe`)).body;
    expect(shown.items).toHaveLength(20);
    expect(shown.open).toBeNull();
    const page1 = (await o.owner.get(`/orgs/${o.org}/observe-windows?limit=15`)).body;
    const page2 = (await o.owner.get(`/orgs/${o.org}/observe-windows?limit=15&cursor=${page1.next_cursor}`))
      .body;
    expect(page1.items.length + page2.items.length).toBe(22);
    expect(page2.next_cursor).toBeNull();
    expect((await o.owner.get(`/orgs/${o.org}/observe-windows?state=open`)).body.items).toEqual([]);
    await expectRefusedUnchanged(
      db.pool,
      () => o.owner.get(`/orgs/${o.org}/observe-windows?colour=red`),
      400,
      "VALIDATION_FAILED",
    );
  });

  it("reports the decisions made under a window and the relaxed calls, with the analysis rate limit", async () => {
    const { o, agent } = await setup();
    const w = (await start(o, agent.id, {})).body.observe_window;
    const insert = (status: string, effect: string, relaxed: boolean) =>
      db.pool.query(
        `insert into protected_actions (organization_id, agent_id, tool_name, action, execution, environment, status, arguments_digest, request_fingerprint, policy_effect, enforcement, rule_id, observe_window_id, relaxed)
         values ($1, $2, 'pay', 'payments.send', 'caller', 'test', $3, 'sha256:x', 'f', $4, 'observe', 'r1', $5, $6)`,
        [o.org, agent.id, status, effect, w.id, relaxed],
      );
    await insert("authorized", "require_approval", true);
    await insert("authorized", "allow", false);
    await insert("denied", "deny", false);
    const viewer = await addMember(api, o, "viewer");
    const report = (await viewer.b.get(`/orgs/${o.org}/observe-windows/${w.id}/report`)).body.report;
    expect(report).toMatchObject({
      decisions: 3,
      relaxed: 1,
      by_policy_effect: { allow: 1, deny: 1, require_approval: 1 },
      by_status: { authorized: 2, denied: 1 },
      relaxed_calls_truncated: false,
    });
    expect(report.relaxed_calls).toHaveLength(1);
    expect(report.relaxed_calls[0]).toMatchObject({
      tool: "pay",
      action: "payments.send",
      policy_effect: "require_approval",
      rule_id: "r1",
    });
    // read-only callers get at most 5 of the organization's 10 per minute; this viewer used one
    for (let i = 0; i < 4; i++)
      expect((await viewer.b.get(`/orgs/${o.org}/observe-windows/${w.id}/report`)).status).toBe(200);
    const limited = await viewer.b.get(`/orgs/${o.org}/observe-windows/${w.id}/report`);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("RATE_LIMITED");
    expect((await o.owner.get(`/orgs/${o.org}/observe-windows/${w.id}/report`)).status).toBe(200);
  });
});
