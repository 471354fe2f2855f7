/**
 * The policy rollout end to end through HTTP on real PostgreSQL: activate
 * v1, watch an observe window, set v2 as shadow and read the shadow report
 * over recorded decisions, promote through the require-approval copy of
 * SPEC 3.5, promote v2 (which clears the shadow), roll back with
 * supersede_all; GET policy-status shows each stage in turn.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { createAgent } from "../../../test/fixtures/organization.js";
import { startCloudApi, type Browser, type CloudApi } from "../../../test/fixtures/cloud-api.js";
import { recordAction, reportGateway, signedInMember } from "../../../test/fixtures/policies.js";
import {
  activate,
  newOrganization,
  newPolicy,
  newVersion,
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

it("walks none → enforce → observe → shadow → require approval → enforce and rolls back with supersede_all", async () => {
  await reportGateway(db.pool, { revisions: [1, 2] });
  const org = await newOrganization(api, owner);
  const agent = await createAgent(db.pool, org);
  const viewer = await signedInMember(api, db.pool, org, "viewer");
  const { policyId, versionId: v1 } = await newPolicy(owner, org, v1Doc, "Payments");
  await db.pool.query("update agents set policy_id = $2 where id = $1", [agent, policyId]);
  // Any member reads the stage (this is what the operator writes into status).
  const status = async () => {
    const res = await viewer.b.get(`/orgs/${org}/policy-status`);
    expect(res.status, res.text).toBe(200);
    return res.body.items[0];
  };
  expect(await status()).toMatchObject({
    policy_id: policyId,
    name: "Payments",
    stage: "none",
    active_version: null,
    shadow_version: null,
    emergency_stopped: false,
  });

  expect((await activate(owner, org, policyId, v1, { expected_active_version_id: null })).status).toBe(200);
  expect(await status()).toMatchObject({ stage: "enforce", active_version: { id: v1, number: 1 } });

  // An open observe window on an agent of the policy overrides every other stage.
  const window = (
    await db.pool.query(
      "insert into observe_windows (organization_id, agent_id, policy_id, hours, ends_at) values ($1, $2, $3, 1, now() + interval '1 hour') returning id",
      [org, agent, policyId],
    )
  ).rows[0].id;
  expect((await status()).stage).toBe("observe");
  await db.pool.query("update observe_windows set ended_at = now(), end_reason = 'ended' where id = $1", [
    window,
  ]);

  // Decisions recorded under v1: two payments held for approval, one allowed.
  for (const amount of ["400", "400", "20"]) {
    const large = amount === "400";
    await recordAction(db.pool, {
      organizationId: org,
      agentId: agent,
      policyId,
      versionId: v1,
      amount,
      currency: "USD",
      effect: large ? "require_approval" : "allow",
      ruleId: large ? "large" : "small",
      status: large ? "pending_approval" : "authorized",
      approval: large ? "pending" : undefined,
    });
  }

  const v2 = await newVersion(owner, org, policyId, v2Doc, "raise the limit to 1000");
  expect(
    (await owner.request("PUT", `/orgs/${org}/policies/${policyId}/shadow`, { version_id: v2 })).status,
  ).toBe(200);
  expect(await status()).toMatchObject({
    stage: "shadow",
    active_version: { id: v1 },
    shadow_version: { id: v2 },
  });
  const report = await owner.get(`/orgs/${org}/policies/${policyId}/shadow/report`);
  expect(report.status, report.text).toBe(200);
  expect(report.body.report.counts).toMatchObject({ recorded: 3, less_restricted: 2, same: 1 });

  // The require-approval copy of the shadow: v2's deny rule becomes a guarded approval, so revision 2.
  const copy = await owner.post(`/orgs/${org}/policies/${policyId}/versions`, {
    require_approval_copy_of: v2,
  });
  expect(copy.status, copy.text).toBe(201);
  expect(copy.body.version).toMatchObject({
    number: 3,
    origin: "require_approval_copy",
    source_version_id: v2,
    language_revision: 2,
  });
  expect(copy.body.version.document.rules[0]).toMatchObject({
    id: "no-deletes",
    effect: "require_approval",
    guard: true,
    approvers: { roles: ["owner", "admin"] },
  });
  const v3 = copy.body.version.id;
  const promoted = await activate(owner, org, policyId, v3, {
    expected_active_version_id: v1,
    shadow_version_id: v2,
  });
  expect(promoted.status, promoted.text).toBe(200);
  expect(promoted.body.shadow_cleared).toBe(false);
  expect(await status()).toMatchObject({
    stage: "require_approval",
    active_version: { id: v3 },
    shadow_version: { id: v2 },
  });

  // Promoting the target itself clears the shadow.
  const enforced = await activate(owner, org, policyId, v2, {
    expected_active_version_id: v3,
    shadow_version_id: v2,
  });
  expect(enforced.status, enforced.text).toBe(200);
  expect(enforced.body.shadow_cleared).toBe(true);
  expect(await status()).toMatchObject({
    stage: "enforce",
    active_version: { id: v2 },
    shadow_version: null,
  });

  // Something goes wrong: back to the require-approval copy, closing everything decided before.
  const rb = await owner.post(`/orgs/${org}/policies/${policyId}/rollback`, {
    expected_active_version_id: v2,
    open_actions: "supersede_all",
    note: "refunds failed",
  });
  expect(rb.status, rb.text).toBe(200);
  expect(rb.body).toMatchObject({
    restored_version: { id: v3 },
    closed_actions: 2,
    open_actions: "supersede_all",
    warnings: [],
  });
  expect(await status()).toMatchObject({
    stage: "enforce",
    active_version: { id: rb.body.version.id, number: 4 },
  });
  const open = await db.pool.query(
    "select count(*)::int as n from protected_actions where policy_id = $1 and status = 'pending_approval'",
    [policyId],
  );
  expect(open.rows[0].n).toBe(0);
  const activations = (
    await db.pool.query("select trigger from policy_activations where policy_id = $1 order by created_at", [
      policyId,
    ])
  ).rows.map((r) => r.trigger);
  expect(activations).toEqual(["activate", "activate", "activate", "rollback"]);
  const events = (
    await db.pool.query(
      "select data->>'trigger' as t from events where organization_id = $1 and type = 'policy.activated' order by created_at",
      [org],
    )
  ).rows.map((r) => r.t);
  expect(events).toEqual(["activate", "activate", "activate", "rollback"]);
});
