/**
 * Policies, versions and activation through the real server on real
 * PostgreSQL (SPEC 2.4, 3.3, 3.4, 4.5, 8.3): every gate in order, a request
 * failing two gates gets the first one's code, and every refusal changes
 * nothing (versions, policy row, audit, events, activation records).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { createAgent } from "../../../test/fixtures/organization.js";
import { startCloudApi, type Browser, type CloudApi } from "../../../test/fixtures/cloud-api.js";
import { recordAction, reportGateway, signedInMember } from "../../../test/fixtures/policies.js";
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
import { shiftActionTimes } from "../../../core/src/actions/fixtures.test-support.js";

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

describe("policies and versions", () => {
  it("creates a policy with version 1 as a draft, lists and reads it, and lints with validate", async () => {
    const org = await newOrganization(api, owner);
    const { policyId, versionId } = await newPolicy(owner, org, v1Doc, "Payments");
    const got = await owner.get(`/orgs/${org}/policies/${policyId}`);
    expect(got.status).toBe(200);
    expect(got.body.policy).toMatchObject({
      name: "Payments",
      active_version_id: null,
      agent_disclosure: "inherit",
    });
    expect(got.body.versions).toEqual([
      expect.objectContaining({
        id: versionId,
        number: 1,
        status: "draft",
        language_revision: 1,
        document: v1Doc,
      }),
    ]);
    expect((await owner.get(`/orgs/${org}/policies`)).body.items.map((p: { id: string }) => p.id)).toEqual([
      policyId,
    ]);

    const ok = await owner.post(`/orgs/${org}/policies/validate`, {
      document: { rules: [{ id: "a", effect: "allow", guard: true }] },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ valid: true, language_revision: 2 });
    expect(ok.body.lint.warnings.map((w: { code: string }) => w.code)).toContain("guard_without_effect");
    const bad = await owner.post(`/orgs/${org}/policies/validate`, {
      document: { rules: [{ id: "a", effect: "maybe" }], extra: 1 },
    });
    expectError(bad, 422, "POLICY_INVALID");
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(
      expect.arrayContaining(["extra", "rules.0.effect"]),
    );
  });

  it("creates from a template, lists templates, and refuses an unknown template with 404 TEMPLATE_NOT_FOUND creating nothing", async () => {
    const org = await newOrganization(api, owner);
    const list = await owner.get(`/orgs/${org}/policy-templates`);
    expect(list.body.items.map((t: { id: string }) => t.id)).toEqual([
      "read-only-agent",
      "spend-limit-with-approval",
      "deny-destructive-actions",
    ]);
    const made = await owner.post(`/orgs/${org}/policies/from-template`, {
      template_id: "read-only-agent",
      name: "Readers",
    });
    expect(made.status).toBe(201);
    expect(made.body.version).toMatchObject({ number: 1, status: "draft", origin: "template" });
    const missing = await owner.post(`/orgs/${org}/policies/from-template`, {
      template_id: "nope",
      name: "X",
    });
    expectError(missing, 404, "TEMPLATE_NOT_FOUND");
    expect(
      (await db.pool.query("select count(*)::int as n from policies where organization_id = $1", [org]))
        .rows[0].n,
    ).toBe(1);
  });

  it("refuses an invalid document, a duplicate draft (DRAFT_EXISTS), a duplicate name, and the plan's policy limit, writing nothing", async () => {
    const org = await newOrganization(api, owner);
    const { policyId } = await newPolicy(owner, org, v1Doc, "Dup");
    const before = await snapshot(db.pool, policyId);
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await owner.post(`/orgs/${org}/policies/${policyId}/versions`, { document: { rules: "no" } }),
      422,
      "POLICY_INVALID",
    );
    // The same document again, only reformatted: same digest as draft 1.
    const dup = await owner.post(`/orgs/${org}/policies/${policyId}/versions`, {
      document: JSON.parse(JSON.stringify(v1Doc)),
    });
    await expectRefusedUnchanged(db.pool, policyId, before, dup, 409, "DRAFT_EXISTS");
    expect(dup.body.error.details.number).toBe(1);
    expectError(await owner.post(`/orgs/${org}/policies`, { name: "Dup" }), 409, "NAME_TAKEN");

    await db.pool.query("update organizations set plan = 'developer' where id = $1", [org]);
    for (let i = 0; i < 4; i++)
      expect((await owner.post(`/orgs/${org}/policies`, { name: `more-${i}` })).status).toBe(201);
    expectError(await owner.post(`/orgs/${org}/policies`, { name: "sixth" }), 402, "PLAN_LIMIT_EXCEEDED");
    expect(
      (await db.pool.query("select count(*)::int as n from policies where organization_id = $1", [org]))
        .rows[0].n,
    ).toBe(5);
  });

  it("refuses version 5001 of an organization and a version beyond 64 MiB of documents with 409 POLICY_VERSION_LIMIT", async () => {
    const org = await newOrganization(api, owner);
    const { policyId } = await newPolicy(owner, org, v1Doc);
    // 4999 more versions of another policy (plain rows: the limit is per organization).
    const other = await newPolicy(owner, org, v2Doc);
    await db.pool.query(
      `insert into policy_versions (policy_id, organization_id, number, document, document_size, digest, language_revision)
       select $1, $2, n, '{}', 10, 'sha256:' || n, 1 from generate_series(2, 4999) n`,
      [other.policyId, org],
    );
    const before = await snapshot(db.pool, policyId);
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await owner.post(`/orgs/${org}/policies/${policyId}/versions`, { document: rev2Doc }),
      409,
      "POLICY_VERSION_LIMIT",
    );
    // Bytes: with few versions but 64 MiB of documents recorded.
    await db.pool.query("delete from policy_versions where policy_id = $1 and number > 1", [other.policyId]);
    await db.pool.query("update policy_versions set document_size = $2 where policy_id = $1", [
      other.policyId,
      64 * 1024 * 1024 - 100,
    ]);
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await owner.post(`/orgs/${org}/policies/${policyId}/versions`, { document: rev2Doc }),
      409,
      "POLICY_VERSION_LIMIT",
    );
  });

  it("answers 404 for a malformed or unknown policy id and 400 VALIDATION_FAILED for an unknown body member, changing nothing", async () => {
    const org = await newOrganization(api, owner);
    const { policyId, versionId } = await newPolicy(owner, org);
    expectError(await owner.get(`/orgs/${org}/policies/not-a-uuid`), 404, "NOT_FOUND");
    expectError(
      await owner.get(`/orgs/${org}/policies/00000000-0000-4000-8000-000000000009`),
      404,
      "NOT_FOUND",
    );
    const before = await snapshot(db.pool, policyId);
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await activate(owner, org, policyId, versionId, { force: true }),
      400,
      "VALIDATION_FAILED",
    );
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await activate(owner, org, policyId, "00000000-0000-4000-8000-000000000009"),
      404,
      "NOT_FOUND",
    );
  });

  it("changes the disclosure setting with PATCH without creating a version", async () => {
    const org = await newOrganization(api, owner);
    const { policyId } = await newPolicy(owner, org);
    const res = await owner.patch(`/orgs/${org}/policies/${policyId}`, { agent_disclosure: "conditions" });
    expect(res.status).toBe(200);
    expect(res.body.policy.agent_disclosure).toBe("conditions");
    expect(
      (await db.pool.query("select count(*)::int as n from policy_versions where policy_id = $1", [policyId]))
        .rows[0].n,
    ).toBe(1);
    expectError(
      await owner.patch(`/orgs/${org}/policies/${policyId}`, { agent_disclosure: "all" }),
      400,
      "VALIDATION_FAILED",
    );
  });
});

describe("activation", () => {
  it("activates a draft: previous active superseded in the same change, audit and one policy.activated event, note not stored", async () => {
    const org = await newOrganization(api, owner);
    const { policyId, versionId: v1 } = await newPolicy(owner, org);
    const first = await activate(owner, org, policyId, v1, { expected_active_version_id: null });
    expect(first.status, first.text).toBe(200);
    const v2 = await newVersion(owner, org, policyId, v2Doc);
    const secret = "the reason is confidential-7f3a";
    const res = await activate(owner, org, policyId, v2, { expected_active_version_id: v1, note: secret });
    expect(res.status, res.text).toBe(200);
    expect(res.body.version).toMatchObject({ id: v2, status: "active" });
    expect(res.body.previous_version_id).toBe(v1);
    const versions = (
      await db.pool.query("select id, status from policy_versions where policy_id = $1 order by number", [
        policyId,
      ])
    ).rows;
    expect(versions).toEqual([
      { id: v1, status: "superseded" },
      { id: v2, status: "active" },
    ]);
    const audits = (
      await db.pool.query(
        "select action, details from audit_log where target_id = $1 and action = 'policy.activated' order by id",
        [policyId],
      )
    ).rows;
    expect(audits).toHaveLength(2);
    expect(audits[1].details).toMatchObject({
      trigger: "activate",
      version_id: v2,
      note_given: true,
      previous_version_id: v1,
    });
    const events = (
      await db.pool.query("select type, data from events where organization_id = $1 order by created_at", [
        org,
      ])
    ).rows;
    expect(events.map((e) => e.type)).toEqual(["policy.activated", "policy.activated"]);
    expect(events[1].data).toMatchObject({
      policy_id: policyId,
      version_id: v2,
      version: 2,
      trigger: "activate",
      previous_version_id: v1,
    });
    // The note's text is nowhere in the database.
    const dump = await db.pool.query(
      "select (select json_agg(a) from audit_log a)::text || (select json_agg(v) from policy_versions v)::text || (select json_agg(x) from policy_activations x)::text as t",
    );
    expect(dump.rows[0].t).not.toContain("confidential-7f3a");
  });

  it("refuses gate 1: 409 ALREADY_ACTIVE for the active version and 409 INVALID_STATE for a superseded one, changing nothing", async () => {
    const org = await newOrganization(api, owner);
    const { policyId, versionId: v1 } = await newPolicy(owner, org);
    expect((await activate(owner, org, policyId, v1)).status).toBe(200);
    const v2 = await newVersion(owner, org, policyId, v2Doc);
    expect((await activate(owner, org, policyId, v2)).status).toBe(200);
    const before = await snapshot(db.pool, policyId);
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await activate(owner, org, policyId, v2),
      409,
      "ALREADY_ACTIVE",
    );
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await activate(owner, org, policyId, v1),
      409,
      "INVALID_STATE",
    );
  });

  it("gate 2, the language gate: closed with no recent Gateway, an outdated one running, or older decisions in 30 minutes; revision 1 always passes", async () => {
    // Gateway reports are installation-wide: this test owns them in its own database.
    await db.pool.query("delete from gateway_instances");
    const org = await newOrganization(api, owner);
    const agent = await createAgent(db.pool, org);
    const { policyId } = await newPolicy(owner, org, rev2Doc);
    await db.pool.query("update agents set policy_id = $2 where id = $1", [agent, policyId]);
    const v = (await db.pool.query("select id from policy_versions where policy_id = $1", [policyId])).rows[0]
      .id;
    const before = await snapshot(db.pool, policyId);
    const reason = async () => {
      const res = await activate(owner, org, policyId, v);
      await expectRefusedUnchanged(db.pool, policyId, before, res, 409, "GATEWAYS_NOT_UPGRADED");
      return res.body.error.details.language_gate.reason;
    };
    // A Gateway seen 2 minutes ago is not recent.
    await reportGateway(db.pool, { revisions: [1, 2], secondsAgo: 120 });
    expect(await reason()).toBe("no_recent_gateway");
    const current = await reportGateway(db.pool, { revisions: [1, 2] });
    const old = await reportGateway(db.pool, { revisions: [1] });
    expect(await reason()).toBe("outdated_gateway_running");
    await db.pool.query(
      "update gateway_instances set last_seen_at = now() - interval '5 minutes' where instance_id = $1",
      [old],
    );
    const olderDecision = await recordAction(db.pool, {
      organizationId: org,
      agentId: agent,
      gatewayRevision: 1,
      minutesAgo: 10,
    });
    expect(await reason()).toBe("older_gateway_decided_recently");
    await shiftActionTimes(db.pool, olderDecision, { createdAt: "-31 minutes" });
    const res = await activate(owner, org, policyId, v);
    expect(res.status, res.text).toBe(200);
    expect(res.body.language_gate).toMatchObject({ open: true });
    // Gate 1 before gate 2: the active revision-2 version with the gate closed again answers ALREADY_ACTIVE.
    await db.pool.query("delete from gateway_instances where instance_id <> $1", [current]);
    await db.pool.query("update gateway_instances set last_seen_at = now() - interval '10 minutes'");
    const active = await snapshot(db.pool, policyId);
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      active,
      await activate(owner, org, policyId, v),
      409,
      "ALREADY_ACTIVE",
    );
    await reportGateway(db.pool, { revisions: [1, 2], id: current });

    // A revision-1 document passes with no Gateway at all.
    await db.pool.query("delete from gateway_instances where instance_id = $1", [current]);
    const p1 = await newPolicy(owner, org, v1Doc);
    expect((await activate(owner, org, p1.policyId, p1.versionId)).status).toBe(200);
  });

  it("gate 3, examples: 409 EXAMPLES_FAILING unless acknowledge_failing_examples, which is recorded; two failing gates answer the first", async () => {
    await db.pool.query("delete from gateway_instances");
    const org = await newOrganization(api, owner);
    const { policyId } = await newPolicy(owner, org, rev2Doc);
    const v = (await db.pool.query("select id from policy_versions where policy_id = $1", [policyId])).rows[0]
      .id;
    // Expects 60 USD to be allowed by "small"; rev2Doc allows only up to 50.
    const ex = await owner.request("PUT", `/orgs/${org}/policies/${policyId}/examples`, [
      {
        id: "e1",
        tool: "payments.send",
        action: "payments.send",
        amount: "60",
        currency: "USD",
        expected_outcome: "allowed",
        expected_rule: "small",
      },
      {
        id: "e2",
        tool: "payments.send",
        action: "payments.send",
        amount: "10",
        currency: "USD",
        expected_outcome: "allowed",
        expected_rule: "small",
      },
    ]);
    expect(ex.status, ex.text).toBe(200);
    const before = await snapshot(db.pool, policyId);
    // Language gate closed and examples failing: the language gate answers.
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await activate(owner, org, policyId, v),
      409,
      "GATEWAYS_NOT_UPGRADED",
    );
    await reportGateway(db.pool, { revisions: [1, 2] });
    const failing = await activate(owner, org, policyId, v);
    await expectRefusedUnchanged(db.pool, policyId, before, failing, 409, "EXAMPLES_FAILING");
    expect(failing.body.error.details).toMatchObject({
      failed: 1,
      failing: [expect.objectContaining({ id: "e1", passed: false })],
    });
    const acked = await activate(owner, org, policyId, v, { acknowledge_failing_examples: true });
    expect(acked.status, acked.text).toBe(200);
    expect(acked.body.examples).toMatchObject({ passed: 1, failed: 1 });
    const rec = (
      await db.pool.query(
        "select acknowledged_failing_examples, failing_examples from policy_activations where policy_id = $1",
        [policyId],
      )
    ).rows;
    expect(rec).toEqual([{ acknowledged_failing_examples: true, failing_examples: 1 }]);
    const audit = (
      await db.pool.query(
        "select details from audit_log where target_id = $1 and action = 'policy.activated'",
        [policyId],
      )
    ).rows[0].details;
    expect(audit).toMatchObject({ acknowledged_failing_examples: true, failing_examples: 1 });
  });

  it("gate 4, the impact preview: 409 IMPACT_CHANGED when max_loosened is below the loosened count of the agents' recent decisions", async () => {
    const org = await newOrganization(api, owner);
    const agent = await createAgent(db.pool, org);
    const { policyId, versionId: v1 } = await newPolicy(owner, org);
    await db.pool.query("update agents set policy_id = $2 where id = $1", [agent, policyId]);
    expect((await activate(owner, org, policyId, v1)).status).toBe(200);
    const v2 = await newVersion(owner, org, policyId, v2Doc);
    // Three payments of 500 USD held for approval under v1: v2 allows them. One older than 7 days does not count.
    for (let i = 0; i < 3; i++)
      await recordAction(db.pool, {
        organizationId: org,
        agentId: agent,
        policyId,
        versionId: v1,
        amount: "500",
        currency: "USD",
        effect: "require_approval",
        ruleId: "large",
        status: "rejected",
      });
    await recordAction(db.pool, {
      organizationId: org,
      agentId: agent,
      policyId,
      versionId: v1,
      amount: "500",
      currency: "USD",
      effect: "require_approval",
      minutesAgo: 8 * 24 * 60,
    });
    await recordAction(db.pool, {
      organizationId: org,
      agentId: agent,
      policyId,
      versionId: v1,
      amount: "5",
      currency: "USD",
      effect: "allow",
      ruleId: "small",
      status: "authorized",
    });
    const before = await snapshot(db.pool, policyId);
    const refused = await activate(owner, org, policyId, v2, { max_loosened: 2 });
    await expectRefusedUnchanged(db.pool, policyId, before, refused, 409, "IMPACT_CHANGED");
    expect(refused.body.error.details.impact).toMatchObject({
      computed: true,
      decisions: 4,
      less_restricted: 3,
      same: 1,
    });
    // Gate 4 before gate 5: too many loosened calls and a wrong expected version answer IMPACT_CHANGED.
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await activate(owner, org, policyId, v2, { max_loosened: 0, expected_active_version_id: v2 }),
      409,
      "IMPACT_CHANGED",
    );
    // Gate 3 before gate 4: a failing example and too many loosened calls answer EXAMPLES_FAILING.
    const failing = [
      {
        id: "f",
        tool: "payments.send",
        action: "payments.send",
        amount: "500",
        currency: "USD",
        expected_outcome: "requires_approval",
        expected_rule: "large",
      },
    ];
    expect((await owner.request("PUT", `/orgs/${org}/policies/${policyId}/examples`, failing)).status).toBe(
      200,
    );
    const withExamples = await snapshot(db.pool, policyId);
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      withExamples,
      await activate(owner, org, policyId, v2, { max_loosened: 0 }),
      409,
      "EXAMPLES_FAILING",
    );
    expect((await owner.request("PUT", `/orgs/${org}/policies/${policyId}/examples`, [])).status).toBe(200);
    const ok = await activate(owner, org, policyId, v2, { max_loosened: 3, expected_active_version_id: v1 });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.impact).toMatchObject({ computed: true, less_restricted: 3 });
  });

  it("gate 4 reviewed first: GET .../impact is the figure the activation checks, for a first activation after calls made before any policy was active and for a later one; a call recorded after the review is still refused IMPACT_CHANGED", async () => {
    const org = await newOrganization(api, owner);
    const agent = await createAgent(db.pool, org);
    const { policyId, versionId: v1 } = await newPolicy(owner, org);
    await db.pool.query("update agents set policy_id = $2 where id = $1", [agent, policyId]);
    // The natural first try: calls made before any version was active, denied NO_POLICY.
    const noPolicy = (amount: string, tool = "payments.send") =>
      recordAction(db.pool, {
        organizationId: org,
        agentId: agent,
        policyId,
        tool,
        action: tool,
        amount,
        currency: "USD",
        effect: null,
        decisionCode: "NO_POLICY",
        status: "denied",
      });
    await noPolicy("5");
    await noPolicy("5");
    await noPolicy("500");
    await noPolicy("5", "files.delete");
    const impactOf = (versionId: string) =>
      owner.get(`/orgs/${org}/policies/${policyId}/versions/${versionId}/impact`);

    // Under v1 two calls are allowed and one is held: three looser than today's denial.
    const reviewed = await impactOf(v1);
    expect(reviewed.status, reviewed.text).toBe(200);
    expect(reviewed.body).toEqual({
      version_id: v1,
      active_version_id: null,
      impact: expect.objectContaining({ computed: true, decisions: 4, less_restricted: 3, same: 1 }),
    });
    // Reading the preview changes nothing and a second read answers the same figure (no loop).
    expect((await impactOf(v1)).body).toEqual(reviewed.body);

    // A real change between the review and the activation is refused, nothing activated.
    await noPolicy("7");
    const before = await snapshot(db.pool, policyId);
    const refused = await activate(owner, org, policyId, v1, {
      expected_active_version_id: null,
      max_loosened: reviewed.body.impact.less_restricted,
    });
    await expectRefusedUnchanged(db.pool, policyId, before, refused, 409, "IMPACT_CHANGED");
    expect(refused.body.error.details.impact).toMatchObject({ less_restricted: 4 });

    // Reviewing again gives the service's figure, and activating with it succeeds.
    const again = await impactOf(v1);
    expect(again.body.impact).toMatchObject({ computed: true, decisions: 5, less_restricted: 4 });
    const first = await activate(owner, org, policyId, v1, {
      expected_active_version_id: null,
      max_loosened: again.body.impact.less_restricted,
    });
    expect(first.status, first.text).toBe(200);
    expect(first.body.impact).toEqual(again.body.impact);

    // A later activation: against the active v1, the 500 USD call held by v1 is allowed by v2.
    const v2 = await newVersion(owner, org, policyId, v2Doc);
    const next = await impactOf(v2);
    expect(next.body).toMatchObject({ version_id: v2, active_version_id: v1 });
    expect(next.body.impact).toMatchObject({ computed: true, decisions: 5, less_restricted: 1 });
    const second = await activate(owner, org, policyId, v2, {
      expected_active_version_id: v1,
      max_loosened: next.body.impact.less_restricted,
    });
    expect(second.status, second.text).toBe(200);
    expect(second.body.impact).toEqual(next.body.impact);

    // An unknown version, or another organization's policy, is not found.
    expectError(await impactOf("00000000-0000-4000-8000-000000000000"), 404, "NOT_FOUND");
    const other = await newOrganization(api, owner);
    expectError(
      await owner.get(`/orgs/${other}/policies/${policyId}/versions/${v2}/impact`),
      404,
      "NOT_FOUND",
    );
  });

  it("gate 4 within its budget: when the preview exceeds 1.5 s it is not computed and nothing is refused (injected clock)", async () => {
    let t = 0;
    // Every reading of the clock is one second later: the preview sees 2 s pass.
    const slow = await startCloudApi(db, { extra: { rollout: { clock: () => (t += 1000) } } });
    try {
      const b = slow.browser();
      await b.signUpAndIn(slow.smtp);
      const org = await newOrganization(slow, b);
      const agent = await createAgent(db.pool, org);
      const { policyId, versionId: v1 } = await newPolicy(b, org);
      await db.pool.query("update agents set policy_id = $2 where id = $1", [agent, policyId]);
      expect((await activate(b, org, policyId, v1)).status).toBe(200);
      await recordAction(db.pool, {
        organizationId: org,
        agentId: agent,
        policyId,
        versionId: v1,
        amount: "500",
        currency: "USD",
        effect: "require_approval",
      });
      const v2 = await newVersion(b, org, policyId, v2Doc);
      const res = await activate(b, org, policyId, v2, { max_loosened: 0 });
      expect(res.status, res.text).toBe(200);
      expect(res.body.impact).toEqual({ computed: false, reason: "time_budget_exceeded" });
    } finally {
      await slow.close();
    }
  });

  it("gate 5: ACTIVE_VERSION_CHANGED, SHADOW_CHANGED, SIMULATION_MISMATCH and POLICY_INVALID, each changing nothing, after the earlier gates", async () => {
    const org = await newOrganization(api, owner);
    const { policyId, versionId: v1 } = await newPolicy(owner, org);
    expect((await activate(owner, org, policyId, v1)).status).toBe(200);
    const v2 = await newVersion(owner, org, policyId, v2Doc);
    const before = await snapshot(db.pool, policyId);
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await activate(owner, org, policyId, v2, { expected_active_version_id: v2 }),
      409,
      "ACTIVE_VERSION_CHANGED",
    );
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await activate(owner, org, policyId, v2, { expected_active_version_id: null }),
      409,
      "ACTIVE_VERSION_CHANGED",
    );
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await activate(owner, org, policyId, v2, { shadow_version_id: v2 }),
      409,
      "SHADOW_CHANGED",
    );
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await activate(owner, org, policyId, v2, { simulation_id: "00000000-0000-4000-8000-000000000000" }),
      400,
      "SIMULATION_MISMATCH",
    );
    // A saved simulation of another candidate does not match.
    const sim = await owner.post(`/orgs/${org}/policies/${policyId}/simulations`, {
      candidate: { version_id: v1 },
      baseline: { kind: "active" },
    });
    expect(sim.status, sim.text).toBe(201);
    const withSim = await snapshot(db.pool, policyId);
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      withSim,
      await activate(owner, org, policyId, v2, { simulation_id: sim.body.simulation.id }),
      400,
      "SIMULATION_MISMATCH",
    );
    // Both an expected-version mismatch and a mismatching simulation: the first listed answers.
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      withSim,
      await activate(owner, org, policyId, v2, {
        expected_active_version_id: v2,
        simulation_id: sim.body.simulation.id,
      }),
      409,
      "ACTIVE_VERSION_CHANGED",
    );
    const good = await owner.post(`/orgs/${org}/policies/${policyId}/simulations`, {
      candidate: { version_id: v2 },
      baseline: { kind: "active" },
    });
    expect(good.status).toBe(201);
    // A stored document that no longer validates is refused 422 POLICY_INVALID.
    const v3 = await newVersion(owner, org, policyId, { rules: [] });
    await db.pool.query('update policy_versions set document = \'{"rules": "broken"}\' where id = $1', [v3]);
    const beforeInvalid = await snapshot(db.pool, policyId);
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      beforeInvalid,
      await activate(owner, org, policyId, v3),
      422,
      "POLICY_INVALID",
    );
    const res = await activate(owner, org, policyId, v2, {
      expected_active_version_id: v1,
      simulation_id: good.body.simulation.id,
    });
    expect(res.status, res.text).toBe(200);
    expect(
      (await db.pool.query("select simulation_id from policy_activations where version_id = $1", [v2]))
        .rows[0].simulation_id,
    ).toBe(good.body.simulation.id);
  });

  it("refuses a developer with 403 and a management key (keys never activate), changing nothing", async () => {
    const org = await newOrganization(api, owner);
    const { policyId, versionId } = await newPolicy(owner, org);
    const dev = await signedInMember(api, db.pool, org, "developer");
    const before = await snapshot(db.pool, policyId);
    await expectRefusedUnchanged(
      db.pool,
      policyId,
      before,
      await activate(dev.b, org, policyId, versionId),
      403,
      "FORBIDDEN",
    );
    const key = await owner.post(`/orgs/${org}/api-keys`, {
      name: "ci",
      kind: "management",
      scopes: ["read", "policies:write"],
    });
    expect(key.status, key.text).toBe(201);
    const keyCall = await api
      .browser({ origin: null })
      .post(
        `/orgs/${org}/policies/${policyId}/versions/${versionId}/activate`,
        {},
        { authorization: `Bearer ${key.body.secret}` },
      );
    await expectRefusedUnchanged(db.pool, policyId, before, keyCall, 403, "FORBIDDEN");
    // a developer may still create drafts
    expect((await dev.b.post(`/orgs/${org}/policies/${policyId}/versions`, { document: v2Doc })).status).toBe(
      201,
    );
  });
});
