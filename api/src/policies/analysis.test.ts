/**
 * Shadow, examples, simulations, decision maps, diffs, the evidence export
 * and the analysis rate limits of SPEC 8.1, through the real server on real
 * PostgreSQL (SPEC 2.4, 4.5, 8.3, 8.4). Refusals change nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { digestOf } from "@countersign/protocol/canonical";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { createAgent } from "../../../test/fixtures/organization.js";
import { startCloudApi, type Browser, type CloudApi } from "../../../test/fixtures/cloud-api.js";
import { recordAction, type RecordedAction, signedInMember } from "../../../test/fixtures/policies.js";
import {
  activate,
  expectError,
  expectRefusedUnchanged,
  newOrganization,
  newPolicy,
  newVersion,
  snapshot,
  v1Doc,
  v2Doc,
} from "../../../test/fixtures/policy-rollout.js";

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

/** v1 active, v2 draft, an agent using the policy, recorded decisions under v1. */
async function withHistory() {
  const org = await newOrganization(api, owner);
  const agent = await createAgent(db.pool, org);
  const { policyId, versionId: v1 } = await newPolicy(owner, org, v1Doc);
  await db.pool.query("update agents set policy_id = $2 where id = $1", [agent, policyId]);
  expect((await activate(owner, org, policyId, v1)).status).toBe(200);
  const v2 = await newVersion(owner, org, policyId, v2Doc);
  const rec = (o: Partial<RecordedAction>) =>
    recordAction(db.pool, { organizationId: org, agentId: agent, policyId, versionId: v1, ...o });
  for (let i = 0; i < 2; i++)
    await rec({
      amount: "500",
      currency: "USD",
      effect: "require_approval",
      ruleId: "large",
      status: "rejected",
    });
  await rec({
    amount: "5",
    currency: "USD",
    effect: "allow",
    ruleId: "small",
    status: "succeeded",
    environment: "test",
  });
  await rec({ tool: "db.rows", action: "db.rows.delete", effect: "deny", ruleId: null });
  await rec({ effect: null, decisionCode: "INVALID_AMOUNT" });
  return { org, agent, policyId, v1, v2 };
}
const path = (org: string, policyId: string, rest = "") => `/orgs/${org}/policies/${policyId}${rest}`;

describe("examples", () => {
  it("stores up to 200 examples and reports them against the active version; 400 EXAMPLES_INVALID changes nothing", async () => {
    const org = await newOrganization(api, owner);
    const { policyId, versionId } = await newPolicy(owner, org);
    expect((await activate(owner, org, policyId, versionId)).status).toBe(200);
    const example = (i: number) => ({
      id: `e${i}`,
      tool: "payments.send",
      action: "payments.send",
      amount: "5",
      currency: "USD",
      expected_outcome: "allowed",
      expected_rule: "small",
    });
    const ok = await owner.request("PUT", path(org, policyId, "/examples"), {
      examples: [example(1), { ...example(2), amount: "500", expected_outcome: "denied", expected_rule: "" }],
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.active_version_report).toMatchObject({ passed: 1, failed: 1 });
    const before = await snapshot(db.pool, policyId);
    const many = Array.from({ length: 201 }, (_, i) => example(i));
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await owner.request("PUT", path(org, policyId, "/examples"), many),
      400,
      "EXAMPLES_INVALID",
    );
    const dup = await owner.request("PUT", path(org, policyId, "/examples"), [example(1), example(1)]);
    await expectRefusedUnchanged(db.pool, policyId, before, dup, 400, "EXAMPLES_INVALID");
    expect(dup.body.error.details.issues[0]).toMatchObject({ code: "duplicate_example_id" });
    const args = await owner.request("PUT", path(org, policyId, "/examples"), [
      { ...example(1), arguments: { to: "x" } },
    ]);
    await expectRefusedUnchanged(db.pool, policyId, before, args, 400, "EXAMPLES_INVALID");
    expect(
      (
        await owner.request(
          "PUT",
          path(org, policyId, "/examples"),
          Array.from({ length: 200 }, (_, i) => example(i)),
        )
      ).status,
    ).toBe(200);
  });
});

describe("shadow", () => {
  it("sets and clears the shadow; SHADOW_IS_ACTIVE, SHADOW_CHANGED, NO_SHADOW and POLICY_NOT_FOUND change nothing", async () => {
    const { org, policyId, v1, v2 } = await withHistory();
    const put = (body: unknown) => owner.request("PUT", path(org, policyId, "/shadow"), body);
    const before = await snapshot(db.pool, policyId);
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await put({ version_id: v1 }),
      409,
      "SHADOW_IS_ACTIVE",
    );
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await owner.delete(path(org, policyId, "/shadow")),
      409,
      "NO_SHADOW",
    );
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await put({ version_id: "00000000-0000-4000-8000-000000000002" }),
      422,
      "POLICY_NOT_FOUND",
    );
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await put({ version_id: v2, expected_shadow_version_id: v1 }),
      409,
      "SHADOW_CHANGED",
    );
    const noShadowReport = await owner.get(path(org, policyId, "/shadow/report"));
    expectError(noShadowReport, 409, "NO_SHADOW");
    const set = await put({ version_id: v2, expected_shadow_version_id: null });
    expect(set.status, set.text).toBe(200);
    expect(set.body.policy.shadow_version_id).toBe(v2);
    const cleared = await owner.delete(path(org, policyId, "/shadow"));
    expect(cleared.body.policy.shadow_version_id).toBeNull();
    const actions = (
      await db.pool.query(
        "select action from audit_log where target_id = $1 and action like 'policy.shadow%' order by id",
        [policyId],
      )
    ).rows.map((r) => r.action);
    expect(actions).toEqual(["policy.shadow_set", "policy.shadow_cleared"]);
  });

  it("reports what the shadow would have decided on the recorded decisions", async () => {
    const { org, policyId, v2 } = await withHistory();
    expect((await owner.request("PUT", path(org, policyId, "/shadow"), { version_id: v2 })).status).toBe(200);
    const res = await owner.get(path(org, policyId, "/shadow/report?window_days=7"));
    expect(res.status, res.text).toBe(200);
    expect(res.body.shadow_version_id).toBe(v2);
    const r = res.body.report;
    expect(r.counts).toMatchObject({
      recorded: 5,
      evaluated: 4,
      not_evaluable: 1,
      less_restricted: 2,
      other_rule: 1,
      same: 1,
    });
    expect(r.matrix.require_approval.allow).toBe(2);
    expect(r.differences).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          tool: "payments.send",
          amount: "500",
          count: 2,
          change: "less_restricted",
          candidate: expect.objectContaining({ effect: "allow", rule_id: "small" }),
        }),
        expect.objectContaining({
          action: "db.rows.delete",
          change: "other_rule",
          candidate: expect.objectContaining({ effect: "deny", rule_id: "no-deletes" }),
        }),
      ]),
    );
  });
});

describe("simulation", () => {
  it("replays a candidate against each baseline, filters by environment and scope, and evaluates hypothetical calls", async () => {
    const { org, policyId, v1, v2 } = await withHistory();
    const sim = (body: unknown) => owner.post(path(org, policyId, "/simulate"), body);
    const active = await sim({ candidate: { version_id: v2 } });
    expect(active.status, active.text).toBe(200);
    expect(active.body.simulation.baseline).toEqual({ kind: "active", version_id: v1 });
    expect(active.body.simulation.report.counts).toMatchObject({
      recorded: 5,
      evaluated: 4,
      less_restricted: 2,
    });
    const live = await sim({
      candidate: { version_id: v2 },
      baseline: { kind: "recorded" },
      environment: "test",
    });
    expect(live.body.simulation.report.counts).toMatchObject({ recorded: 1, same: 1 });
    const none = await sim({
      candidate: { document: { default_effect: "allow", rules: [] } },
      baseline: { kind: "none" },
      scope: "policy",
    });
    expect(none.body.simulation.report.candidate_effects).toEqual({ allow: 4, require_approval: 0, deny: 0 });
    expect(none.body.simulation.report.matrix).toBeNull();
    const version = await sim({
      candidate: { version_id: v1 },
      baseline: { kind: "version", version_id: v2 },
      calls: [{ tool: "payments.send", action: "payments.send", amount: "700", currency: "USD" }],
      examples: true,
      decision_map: true,
    });
    expect(version.body.simulation.calls).toEqual([
      {
        index: 0,
        tool: "payments.send",
        action: "payments.send",
        candidate: { effect: "require_approval", rule_id: "large" },
        baseline: { effect: "allow", rule_id: "small" },
      },
    ]);
    expect(version.body.simulation.examples).toMatchObject({ results: [] });
    expect(version.body.simulation.decision_map).toEqual({ tools: [] });
  });

  it("refuses a window over 90 days, more than 100 calls, an invalid candidate, and more than 20000 distinct inputs with REPORT_TOO_LARGE", async () => {
    const { org, agent, policyId, v2 } = await withHistory();
    const sim = (body: unknown) => owner.post(path(org, policyId, "/simulate"), body);
    expectError(await sim({ candidate: { version_id: v2 }, window_days: 91 }), 400, "VALIDATION_FAILED");
    const call = { tool: "t", action: "a" };
    expectError(
      await sim({ candidate: { version_id: v2 }, calls: Array.from({ length: 101 }, () => call) }),
      400,
      "VALIDATION_FAILED",
    );
    expectError(
      await sim({ candidate: { version_id: v2 }, calls: [{ tool: "t", action: "a", amount: "5" }] }),
      422,
      "INVALID_AMOUNT",
    );
    const deep = await sim({
      candidate: { version_id: v2 },
      calls: [{ tool: "t", action: "a", arguments: { a: "\u0000" } }],
    });
    expectError(deep, 422, "INVALID_ARGUMENTS");
    expect(deep.text).not.toContain("\\u0000");
    const invalid = await sim({ candidate: { document: { rules: [{ id: "x", effect: "nope" }] } } });
    expectError(invalid, 422, "POLICY_INVALID");
    expect(invalid.body.error.details.issues[0].path).toBe("candidate.document.rules.0.effect");
    await db.pool.query(
      `insert into protected_actions (organization_id, agent_id, tool_name, action, execution, environment, status, arguments_digest, request_fingerprint,
                                      amount, currency, policy_id, policy_effect)
       select $1, $2, 'payments.send', 'payments.send', 'caller', 'live', 'denied', 'sha256:00', 'fp', n, 'USD', $3, 'deny'
         from generate_series(1, 20001) n`,
      [org, agent, policyId],
    );
    const big = await sim({ candidate: { version_id: v2 } });
    expectError(big, 422, "REPORT_TOO_LARGE");
    expect(big.body.error.details).toEqual({ reason: "distinct_inputs", limit: 20000 });
  });

  it("saves a simulation of a saved version (audited, listed, read), keeps 400 days, and refuses the 101st in 24 hours with SIMULATION_LIMIT", async () => {
    const { org, policyId, v2 } = await withHistory();
    const save = (body: unknown) => owner.post(path(org, policyId, "/simulations"), body);
    const before = await snapshot(db.pool, policyId);
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await save({ candidate: { document: v2Doc } }),
      400,
      "VALIDATION_FAILED",
    );
    const saved = await save({ candidate: { version_id: v2 }, window_days: 30 });
    expect(saved.status, saved.text).toBe(201);
    const s = saved.body.simulation;
    expect(s).toMatchObject({
      candidate_version_id: v2,
      parameters: { window_days: 30, scope: "agents", environment: "all" },
    });
    expect(new Date(s.expires_at).getTime() - new Date(s.created_at).getTime()).toBe(400 * 86_400_000);
    const audit = (
      await db.pool.query(
        "select details from audit_log where target_id = $1 and action = 'policy.simulation_saved'",
        [policyId],
      )
    ).rows;
    expect(audit).toEqual([
      { details: expect.objectContaining({ simulation_id: s.id, candidate_version_id: v2 }) },
    ]);
    expect(
      (await owner.get(path(org, policyId, "/simulations"))).body.items.map((x: { id: string }) => x.id),
    ).toEqual([s.id]);
    expect(
      (await owner.get(path(org, policyId, `/simulations/${s.id}`))).body.simulation.report.counts
        .less_restricted,
    ).toBe(2);
    // An expired saved simulation is gone from lists and reads.
    await db.pool.query(
      "update policy_simulations set expires_at = now() - interval '1 second' where id = $1",
      [s.id],
    );
    expectError(await owner.get(path(org, policyId, `/simulations/${s.id}`)), 404, "NOT_FOUND");
    // 99 more in the last 24 hours make 100: the next is refused and nothing is written.
    await db.pool.query(
      `insert into policy_simulations (organization_id, policy_id, candidate_version_id, baseline, parameters, report, created_by_type, created_at, expires_at)
       select $1, $2, $3, '{}', '{}', '{}', 'user', now() - interval '1 hour', now() + interval '399 days' from generate_series(1, 99)`,
      [org, policyId, v2],
    );
    const full = await snapshot(db.pool, policyId);
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      full,
      await save({ candidate: { version_id: v2 } }),
      409,
      "SIMULATION_LIMIT",
    );
  });
});

describe("decision map and diff", () => {
  it("maps a version over the organization's tools and diffs two versions (from: the active one by default)", async () => {
    const { org, policyId, v1, v2 } = await withHistory();
    const server = (
      await db.pool.query(
        "insert into mcp_servers (organization_id, name, kind) values ($1, 'pay', 'decision_only') returning id",
        [org],
      )
    ).rows[0].id;
    await db.pool.query(
      `insert into tools (organization_id, mcp_server_id, exposed_name, upstream_name, action, amount_mapping, binding)
       values ($1, $2, 'payments.send', 'send', 'payments.send', '{"amount_path": "$.amount", "currency": "USD"}', '{}')`,
      [org, server],
    );
    const map = await owner.get(path(org, policyId, `/versions/${v1}/decision-map`));
    expect(map.status, map.text).toBe(200);
    const entries = map.body.decision_map.tools[0].entries;
    expect(entries.map((e: { decision: { rule_id: string } }) => e.decision.rule_id)).toEqual([
      "small",
      "large",
    ]);
    expect(entries[0].amount).toEqual({ currency: "USD", lte: "100" });
    const diff = await owner.get(path(org, policyId, `/diff?to=${v2}`));
    expect(diff.status, diff.text).toBe(200);
    expect(diff.body.from_version_id).toBe(v1);
    expect(diff.body.diff.added).toEqual([expect.objectContaining({ rule_id: "no-deletes" })]);
    expect(diff.body.diff.changed.map((c: { rule_id: string }) => c.rule_id)).toEqual(["small", "large"]);
    expectError(await owner.get(path(org, policyId, `/diff?to=${v2}&extra=1`)), 400, "VALIDATION_FAILED");
    expectError(
      await owner.get(path(org, policyId, "/diff?to=00000000-0000-4000-8000-000000000003")),
      422,
      "POLICY_NOT_FOUND",
    );
  });
});

describe("one version's document", () => {
  it("serves any version whole, a superseded one too, to every member; an unknown or another policy's version is 404", async () => {
    const { org, policyId, v1, v2 } = await withHistory();
    expect((await activate(owner, org, policyId, v2, { acknowledge_failing_examples: true })).status).toBe(
      200,
    );
    const viewer = await signedInMember(api, db.pool, org, "viewer");
    // The policy's read leaves a superseded version's document out: this route is where it is read.
    const detail = await viewer.b.get(path(org, policyId));
    expect(detail.status, detail.text).toBe(200);
    const listed = detail.body.versions.find((v: { id: string }) => v.id === v1);
    expect(listed.status).toBe("superseded");
    expect(listed.document).toBeUndefined();

    const res = await viewer.b.get(path(org, policyId, `/versions/${v1}`));
    expect(res.status, res.text).toBe(200);
    expect(res.body.version).toMatchObject({ id: v1, policy_id: policyId, status: "superseded", number: 1 });
    expect(res.body.version.document).toEqual(v1Doc);
    expect(res.body.version.digest).toBe(listed.digest);

    const other = await newPolicy(owner, org, v2Doc);
    expectError(await viewer.b.get(path(org, other.policyId, `/versions/${v1}`)), 404, "NOT_FOUND");
    expectError(
      await viewer.b.get(path(org, policyId, "/versions/00000000-0000-4000-8000-000000000003")),
      404,
      "NOT_FOUND",
    );
    expectError(await viewer.b.get(path(org, policyId, "/versions/not-a-uuid")), 404, "NOT_FOUND");
  });
});

describe("without an active version", () => {
  it("answers 409 NO_ACTIVE_POLICY for a diff from the active version and a simulation against it", async () => {
    const org = await newOrganization(api, owner);
    const { policyId, versionId } = await newPolicy(owner, org);
    expectError(await owner.get(path(org, policyId, `/diff?to=${versionId}`)), 409, "NO_ACTIVE_POLICY");
    expectError(
      await owner.post(path(org, policyId, "/simulate"), { candidate: { version_id: versionId } }),
      409,
      "NO_ACTIVE_POLICY",
    );
    const before = await snapshot(db.pool, policyId);
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await owner.post(path(org, policyId, "/simulations"), { candidate: { version_id: versionId } }),
      409,
      "NO_ACTIVE_POLICY",
    );
    expect(
      (
        await owner.post(path(org, policyId, "/simulate"), {
          candidate: { version_id: versionId },
          baseline: { kind: "none" },
        })
      ).status,
    ).toBe(200);
  });
});

describe("analysis rate limits (SPEC 8.1)", () => {
  it("counts 10 analyses per minute per organization, read-only callers at most 5 of them; a refused request counts nothing", async () => {
    const { org, policyId, v2 } = await withHistory();
    const viewer = await signedInMember(api, db.pool, org, "viewer");
    const diff = (b: Browser) => b.get(path(org, policyId, `/diff?to=${v2}`));
    for (let i = 0; i < 5; i++) expect((await diff(viewer.b)).status).toBe(200);
    const refused = await diff(viewer.b);
    expectError(refused, 429, "RATE_LIMITED");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.body.error.details.retry_after_seconds).toBeGreaterThan(0);
    // The viewer's refused request did not count: writers still have 5 of the 10.
    for (let i = 0; i < 5; i++) expect((await diff(owner)).status).toBe(200);
    expectError(await diff(owner), 429, "RATE_LIMITED");
    expectError(
      await owner.post(path(org, policyId, "/simulate"), { candidate: { version_id: v2 } }),
      429,
      "RATE_LIMITED",
    );
    // Another organization has its own budget; reading a policy is not an analysis.
    expect((await owner.get(path(org, policyId))).status).toBe(200);
    const other = await withHistory();
    expect((await owner.get(path(other.org, other.policyId, `/diff?to=${other.v2}`))).status).toBe(200);
  });
});

describe("evidence export", () => {
  it("exports versions, activations, simulations and audit of a period with a digest over its canonical JSON; admins only, at most 400 days", async () => {
    const { org, policyId, v1, v2 } = await withHistory();
    expect(
      (await owner.post(path(org, policyId, "/simulations"), { candidate: { version_id: v2 } })).status,
    ).toBe(201);
    expect((await activate(owner, org, policyId, v2, { acknowledge_failing_examples: false })).status).toBe(
      200,
    );
    const res = await owner.get(path(org, policyId, "/evidence"));
    expect(res.status, res.text).toBe(200);
    const { digest, ...body } = res.body;
    expect(body.format).toBe("countersign.policy-evidence@1");
    expect(digest).toBe(digestOf(body));
    expect(body.versions.map((v: { id: string; document: unknown }) => [v.id, !!v.document])).toEqual([
      [v1, true],
      [v2, true],
    ]);
    expect(body.activations.map((a: { version_id: string }) => a.version_id)).toEqual([v1, v2]);
    expect(body.simulations).toHaveLength(1);
    expect(body.audit.map((a: { action: string }) => a.action)).toEqual(
      expect.arrayContaining(["policy.created", "policy.activated", "policy.simulation_saved"]),
    );
    const from = new Date(Date.now() - 401 * 86_400_000).toISOString();
    expectError(
      await owner.get(path(org, policyId, `/evidence?from=${encodeURIComponent(from)}`)),
      400,
      "VALIDATION_FAILED",
    );
    const dev = await signedInMember(api, db.pool, org, "developer");
    expectError(await dev.b.get(path(org, policyId, "/evidence")), 403, "FORBIDDEN");
  });
});
