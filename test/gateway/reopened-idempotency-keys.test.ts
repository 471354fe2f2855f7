/**
 * SPEC 3.6 "a closed action's identical call gets a new decision" and 7.3 (POLICY_CHANGED,
 * OBSERVE_ENDED, SUPERSEDED: "the identical call gets a new decision"): once a rollback, a policy
 * change or a stop closed a call before it ran, repeating it with the same idempotency key is
 * decided again under what is in force now, instead of answering the stored refusal forever. The
 * closed action stays as it was; the key then belongs to the new decision. Both endpoints, on a
 * real Gateway, real PostgreSQL and, for /mcp, a real upstream and the official SDK client.
 */
import { randomUUID } from "node:crypto";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { supersedeCovered } from "../../core/src/actions/index.js";
import { decideApproval } from "../../core/src/approvals/index.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import {
  createActivePolicy,
  createAuthorizationWorld,
  createMcpTool,
  signDecision,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { echoTool, startUpstream, type Upstream } from "../fixtures/upstream-tools.js";
import { mcpAgent, startTestGateway, type TestGateway } from "./harness.js";

let db: TestDatabase;
let gw: TestGateway;
let up: Upstream;

beforeAll(async () => {
  db = await createTestDatabase();
  gw = await startTestGateway(db);
  up = await startUpstream({ tools: { refund: echoTool } });
});
afterAll(async () => {
  await gw?.close();
  await up?.close();
  await db?.drop();
});

async function actionRow(id: string) {
  const { rows } = await db.pool.query("select status, decision_code from protected_actions where id = $1", [
    id,
  ]);
  return rows[0];
}

async function approve(w: AuthorizationWorld, approvalRequestId: string) {
  await decideApproval(db.pool, {
    organizationId: w.organizationId,
    approvalRequestId,
    userId: w.approver.userId,
    object: await signDecision(db.pool, approvalRequestId, w.approver.signer, "APPROVAL"),
    identity: gw.gateway.identity,
  });
}

describe("POST /v1/authorize", () => {
  it("a held call a rollback closed (SUPERSEDED) is decided again under the same key, which then stays with the new decision", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    const body = { tool: w.tool, arguments: { order: "r-1", amount: 650 }, idempotency_key: "reopen-1" };
    const first = await gw.authorize(w.key, body);
    expect(first.body).toMatchObject({ status: "approval_pending" });
    const closed = await supersedeCovered(db.pool, {
      organizationId: w.organizationId,
      policyId: w.policyId,
      versionId: randomUUID(),
      scope: "supersede_pending",
    });
    expect(closed).toBe(1);

    const again = await gw.authorize(w.key, body);
    expect(again.body).toMatchObject({
      allowed: false,
      status: "approval_pending",
      code: "APPROVAL_PENDING",
    });
    expect(again.body.protected_action_id).not.toBe(first.body.protected_action_id);
    expect(again.body.approval_request_id).not.toBe(first.body.approval_request_id);
    // The closed action is untouched; the key now answers the new decision.
    expect(await actionRow(first.body.protected_action_id)).toEqual({
      status: "expired",
      decision_code: "SUPERSEDED",
    });
    const third = await gw.authorize(w.key, body);
    expect(third.body.protected_action_id).toBe(again.body.protected_action_id);
    // The same key with other arguments is still a reused key, not a new operation.
    const other = await gw.authorize(w.key, { ...body, arguments: { order: "r-1", amount: 651 } });
    expect(other.body).toMatchObject({ status: "invalid_request", code: "IDEMPOTENCY_KEY_REUSED" });
  });

  it("an approved call an emergency stop closed (POLICY_CHANGED) is decided again once the stop is lifted", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    const body = { tool: w.tool, arguments: { order: "r-2", amount: 600 }, idempotency_key: "reopen-2" };
    const first = await gw.authorize(w.key, body);
    await approve(w, first.body.approval_request_id);
    await db.pool.query("update policies set emergency_stopped_at = now() where id = $1", [w.policyId]);
    const stopped = await gw.authorize(w.key, body);
    expect(stopped.body).toMatchObject({
      status: "denied",
      code: "POLICY_CHANGED",
      protected_action_id: first.body.protected_action_id,
    });
    await db.pool.query("update policies set emergency_stopped_at = null where id = $1", [w.policyId]);
    const again = await gw.authorize(w.key, body);
    expect(again.body).toMatchObject({ status: "approval_pending" });
    expect(again.body.protected_action_id).not.toBe(first.body.protected_action_id);
  });
});

describe("tools/call through /mcp", () => {
  it("an allowed call a stricter version refused (POLICY_CHANGED) is decided again under the same key", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    // The first call is allowed and recorded but cannot run yet: its server's credential is unusable.
    const t = await createMcpTool(db.pool, w.organizationId, {
      url: up.url,
      upstreamName: "refund",
      amountMapping: { amount_path: "amount", currency: "EUR" },
      credential: { garbage: true },
    });
    const agent = await mcpAgent(gw.gateway.url, w.key);
    const call = async () =>
      (await agent.callTool({
        name: t.name,
        arguments: { amount: 5 },
        _meta: { "service/idempotency-key": "reopen-mcp" },
      })) as CallToolResult;
    const service = (r: CallToolResult) =>
      (r.structuredContent as { service: Record<string, unknown> }).service;
    const first = service(await call());
    expect(first.code).toBe("UPSTREAM_CREDENTIAL_INVALID");
    await db.pool.query("update mcp_servers set credential_encrypted = null where id = $1", [t.serverId]);
    // A version that denies everything is put in force before the call ran.
    const stricter = await createActivePolicy(db.pool, w.organizationId, {
      revision: 1,
      default_effect: "deny",
      rules: [],
    });
    await db.pool.query("update policies set active_version_id = $2 where id = $1", [
      w.policyId,
      stricter.versionId,
    ]);
    const before = up.calls.refund ?? 0;
    expect(service(await call())).toMatchObject({
      status: "denied",
      code: "POLICY_CHANGED",
      protected_action_id: first.protected_action_id,
    });
    // The identical call again: a new decision under the version in force, recorded as its own action.
    const again = service(await call());
    expect(again).toMatchObject({ status: "denied", code: "POLICY_DENIED" });
    expect(again.protected_action_id).not.toBe(first.protected_action_id);
    expect(await actionRow(first.protected_action_id as string)).toEqual({
      status: "denied",
      decision_code: "POLICY_CHANGED",
    });
    expect(up.calls.refund ?? 0).toBe(before);
    await agent.close();
  });
});
