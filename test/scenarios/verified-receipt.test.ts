/**
 * From an empty database to a receipt verified offline,
 * through the Cloud API only (HTTP, real PostgreSQL, real SMTP for the
 * sign-up link), a real Gateway for /v1/authorize, and the `countersign
 * verify` CLI run as a process on the downloaded file. The browser's key
 * operations (principal, personal identity, delegation, approval) are
 * signed here as the dashboard would sign them.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { sha256Digest } from "../../protocol/src/canonical/index.js";
import {
  followingStep,
  generateSeed,
  signObject,
  timestamp,
  type BodyOf,
  type SignedObject,
} from "../../protocol/src/evidence/index.js";
import { startCloudApi, type Answer, type CloudApi } from "../fixtures/cloud-api.js";
import { newIdentity, signChallenge, signDelegation } from "../fixtures/identities.js";
import { startTestGateway, type TestGateway } from "../gateway/harness.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import { runCountersign } from "../fixtures/cli.js";

let db: TestDatabase;
let api: CloudApi;
let gw: TestGateway;
let dir: string;

beforeAll(async () => {
  db = await createTestDatabase();
  const signingKey = generateSeed();
  api = await startCloudApi(db, { extra: { evidence: { gatewaySigningKey: signingKey } } });
  gw = await startTestGateway(db, {
    keyHashSecret: api.keyHashSecret,
    signingKey,
    defaultPlan: "enterprise",
  });
  dir = mkdtempSync(join(tmpdir(), "countersign-scenario-"));
});
afterAll(async () => {
  await gw?.close();
  await api?.close();
  await db?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const countersign = (...args: string[]) => runCountersign(args);

const ok = (res: Answer, status = 200) => {
  expect(res.status, res.text).toBe(status);
  return res.body;
};

it("signs up, configures an organization, approves a held call through the API and verifies its receipt offline", async () => {
  // Sign up, verify the address through the e-mail link, sign in.
  const owner = api.browser();
  const email = "founder@example.test";
  ok(await owner.post("/auth/signup", { email, password: "correct horse battery staple" }), 202);
  ok(await owner.post("/auth/email/verify", { token: api.smtp.lastToken(email, "verify-email") }));
  const { session } = ok(
    await owner.post("/auth/signin", { email, password: "correct horse battery staple" }),
  );
  const userId = session.user.id as string;

  // Organization and its principal.
  const org = ok(await owner.post("/orgs", { name: "Refunds Inc" }), 201).organization.id as string;
  const principal = newIdentity("principal", { organization_id: org, id: org, name: "Refunds Inc" });
  ok(await owner.post(`/orgs/${org}/principal`, { document: principal.documents[0] }), 201);

  // The owner's personal identity, bound with a challenge.
  const challenge = ok(await owner.post("/me/identity-challenges"), 201).challenge;
  const personal = newIdentity("person", { organization_id: "personal", id: userId, name: "Founder" });
  ok(
    await owner.post("/me/identities", {
      challenge_id: challenge.id,
      signature: signChallenge(personal, challenge.challenge),
      document: personal.documents[0],
    }),
    201,
  );

  // Agent, gateway key, decision-only integration and tool, authorized.
  const agent = ok(await owner.post(`/orgs/${org}/agents`, { name: "refund-bot" }), 201).agent;
  const key = ok(
    await owner.post(`/orgs/${org}/api-keys`, {
      name: "refund-bot live",
      kind: "gateway",
      agent_id: agent.id,
    }),
    201,
  ).secret as string;
  const integration = ok(
    await owner.post(`/orgs/${org}/mcp-servers`, { kind: "decision_only", name: "billing system" }),
    201,
  ).mcp_server;
  const draft = ok(
    await owner.post(`/orgs/${org}/tools`, {
      mcp_server_id: integration.id,
      exposed_name: "refund_payment",
      action: "payments.refund",
      amount_mapping: { amount_path: "amount", currency: "EUR" },
      enabled: false,
    }),
    201,
  ).tool;
  ok(await owner.post(`/orgs/${org}/tools/${draft.id}/authorize`, { binding_digest: draft.binding.digest }));
  const tool = ok(await owner.patch(`/orgs/${org}/tools/${draft.id}`, { enabled: true })).tool;
  expect(tool).toMatchObject({ enabled: true, authorization: { state: "authorized" } });

  // A policy whose require-approval rule holds refunds over 100 EUR, activated and assigned to the agent.
  const document = {
    revision: 1,
    default_effect: "deny",
    rules: [
      {
        id: "large-refunds",
        effect: "require_approval",
        conditions: [{ field: "amount", op: "gt", threshold: "100", currency: "EUR" }],
        approvers: { roles: ["owner", "admin"], count: 1 },
      },
      {
        id: "small-refunds",
        effect: "allow",
        conditions: [{ field: "amount", op: "lte", threshold: "100", currency: "EUR" }],
      },
    ],
  };
  const created = ok(await owner.post(`/orgs/${org}/policies`, { name: "refunds", document }), 201);
  ok(
    await owner.post(`/orgs/${org}/policies/${created.policy.id}/versions/${created.version.id}/activate`, {
      expected_active_version_id: null,
    }),
  );
  ok(await owner.patch(`/orgs/${org}/agents/${agent.id}`, { policy_id: created.policy.id }));

  // The principal delegates refunds to the agent.
  const delegation = signDelegation(principal, {
    organization_id: org,
    agent_id: agent.id,
    permissions: ["payments.*"],
    expires_at: new Date(Date.now() + 7 * 86_400_000),
  });
  ok(await owner.post(`/orgs/${org}/agents/${agent.id}/delegations`, { delegation }), 201);

  // The agent asks; the call is held for approval.
  const call = {
    tool: "refund_payment",
    arguments: { amount: 250, order: "A-1001" },
    idempotency_key: "refund-A-1001",
  };
  const held = await gw.authorize(key, call);
  expect(held.body).toMatchObject({ allowed: false, status: "approval_pending" });
  const approvalId = held.body.approval_request_id as string;

  // The owner reads the request and approves it with the personal key, signing the proposal the API shows.
  const request = ok(await owner.get(`/orgs/${org}/approvals/${approvalId}`)).approval;
  expect(request.approver_kids).toContain(personal.kid);
  const proposal = request.proposal as SignedObject<BodyOf<"PROPOSAL">>;
  const approval = signObject(
    followingStep(proposal, {
      type: "APPROVAL",
      actor: personal.kid,
      on_behalf_of: proposal.body.on_behalf_of,
      delegations: [],
      issued_at: timestamp(new Date()),
      payload: {
        approval_request_id: approvalId,
        call: proposal.body.payload.call,
        expires_at: request.expires_at,
      },
    }),
    personal.signer,
  );
  expect(
    ok(await owner.post(`/orgs/${org}/approvals/${approvalId}/decision`, { decision: approval })).approval
      .status,
  ).toBe("approved");

  // The same request again is authorized, with a receipt over the person's APPROVAL.
  const authorized = await gw.authorize(key, call);
  expect(authorized.body).toMatchObject({
    allowed: true,
    status: "authorized",
    approval_request_id: approvalId,
  });
  const receiptId = authorized.body.receipt_id as string;
  const receipt = ok(await owner.get(`/orgs/${org}/receipts/${receiptId}`)).receipt;
  expect(receipt.verification.errors).toEqual([]);
  expect(receipt).toMatchObject({ outcome: "granted", kind: "authorization", verification: { valid: true } });
  expect(receipt.chain.map((s: { type: string }) => s.type)).toEqual(["TASK", "PROPOSAL", "APPROVAL"]);

  // Download the bundle and verify it offline with the CLI.
  const download = await owner.get(`/orgs/${org}/receipts/${receiptId}/bundle`);
  expect(download.status).toBe(200);
  expect(download.headers.get("x-service-bundle-sha256")).toBe(receipt.bundle_sha256);
  const file = join(dir, `receipt-${receipt.receipt_object_id}.svcbundle`);
  writeFileSync(file, download.text);
  expect(sha256Digest(new TextEncoder().encode(download.text))).toBe(receipt.bundle_sha256);
  const run = await countersign("verify", file);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toMatch(/^VALID/);
  expect(run.stdout).toContain("granted");
  const json = await countersign("verify", file, "--json");
  expect(json.code).toBe(0);
  expect(JSON.parse(json.stdout)).toMatchObject({
    bundle_sha256: receipt.bundle_sha256,
    verification: { valid: true },
  });
});
