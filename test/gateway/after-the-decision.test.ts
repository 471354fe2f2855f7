/**
 * What changes, or does not, between a decision and the call's run (SPEC 3.3, 3.8), what a
 * decision records for others to read (the environment label signed into the TASK, 2.2; the
 * policy object of the decision events, 6.1), and an upstream result that is not canonical JSON
 * (7.3 OUTPUT_NOT_CANONICAL). A real Gateway on a real database, the official SDK client as the
 * agent, a real upstream MCP server.
 */
import { randomBytes } from "node:crypto";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decideApproval } from "../../core/src/approvals/index.js";
import { verifyBundle } from "../../protocol/src/evidence/index.js";
import { languageRevision, parsePolicy, policyDigest } from "../../protocol/src/policy/index.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import {
  createAuthorizationWorld,
  createGatewayKey,
  createMcpTool,
  signDecision,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { echoTool, startUpstream, type Upstream } from "../fixtures/upstream-tools.js";
import type { JsonBody } from "../fixtures/json.js";
import { mcpAgent, startTestGateway, type TestGateway } from "./harness.js";

let db: TestDatabase;
let gw: TestGateway;
let up: Upstream;
const credentialKey = randomBytes(32);

beforeAll(async () => {
  db = await createTestDatabase();
  gw = await startTestGateway(db, { credentialKey });
  up = await startUpstream({
    tools: {
      refund: echoTool,
      // A lone UTF-16 surrogate: valid JSON text, but no canonical JSON (RFC 8785) exists for it.
      surrogate: () => ({ content: [{ type: "text", text: "half a pair: \ud800" }] }),
    },
  });
});
afterAll(async () => {
  await gw?.close();
  await up?.close();
  await db?.drop();
});

let n = 0;
const key = () => `after-${++n}-${Date.now()}`;
const service = (r: CallToolResult) => (r.structuredContent as { service: Record<string, JsonBody> }).service;
const mapping = { amount_path: "amount", currency: "EUR" };
const world = () => createAuthorizationWorld(db.pool, gw.keyHashSecret);

async function approve(w: AuthorizationWorld, approvalRequestId: string) {
  await decideApproval(db.pool, {
    organizationId: w.organizationId,
    approvalRequestId,
    userId: w.approver.userId,
    object: await signDecision(db.pool, approvalRequestId, w.approver.signer, "APPROVAL"),
    identity: gw.gateway.identity,
  });
}

/** Activates a new version of the world's policy with `document`, as activation does (the old one superseded). */
async function activateVersion(w: AuthorizationWorld, document: unknown) {
  const parsed = parsePolicy(document);
  const text = JSON.stringify(parsed);
  const { rows } = await db.pool.query(
    `insert into policy_versions (policy_id, organization_id, number, document, document_size, digest, language_revision, status, activated_at)
     values ($1, $2, (select max(number) + 1 from policy_versions where policy_id = $1), $3, $4, $5, $6, 'active', now()) returning id`,
    [
      w.policyId,
      w.organizationId,
      text,
      Buffer.byteLength(text),
      policyDigest(parsed),
      languageRevision(parsed),
    ],
  );
  await db.pool.query("update policy_versions set status = 'superseded' where policy_id = $1 and id <> $2", [
    w.policyId,
    rows[0].id,
  ]);
  await db.pool.query("update policies set active_version_id = $2 where id = $1", [w.policyId, rows[0].id]);
}
const allowAll = { revision: 1, default_effect: "allow", rules: [] };
const denyAll = { revision: 1, default_effect: "deny", rules: [] };

/**
 * A tool whose server's stored credential cannot be decrypted: an allowed or approved call to it
 * is decided and stays approved without running (UPSTREAM_CREDENTIAL_INVALID) until `fix`.
 */
async function unrunnableTool(w: AuthorizationWorld) {
  const t = await createMcpTool(db.pool, w.organizationId, {
    url: up.url,
    upstreamName: "refund",
    amountMapping: mapping,
    credential: { garbage: true },
  });
  return {
    name: t.name,
    fix: () =>
      db.pool.query("update mcp_servers set credential_encrypted = null where id = $1", [t.serverId]),
  };
}

async function openObserveWindow(w: AuthorizationWorld): Promise<string> {
  const { rows } = await db.pool.query(
    "insert into observe_windows (organization_id, agent_id, hours, ends_at, live) values ($1, $2, 1, now() + interval '1 hour', true) returning id",
    [w.organizationId, w.agentId],
  );
  return rows[0].id;
}

describe("a policy version activated between the decision and the run (SPEC 3.3)", () => {
  it("a call relaxed by an observe window is refused POLICY_CHANGED without re-evaluation, even when the new version allows it", async () => {
    const w = await world();
    await openObserveWindow(w);
    const t = await unrunnableTool(w);
    const a = await mcpAgent(gw.gateway.url, w.key);
    const k = key();
    const args = { order: "relaxed", amount: 500 };
    const call = () =>
      a.callTool({
        name: t.name,
        arguments: args,
        _meta: { "service/idempotency-key": k },
      }) as Promise<CallToolResult>;
    const first = await call();
    expect(service(first).code).toBe("UPSTREAM_CREDENTIAL_INVALID");
    const { rows } = await db.pool.query("select status, relaxed from protected_actions where id = $1", [
      service(first).protected_action_id,
    ]);
    expect(rows[0]).toEqual({ status: "approved", relaxed: true });
    await t.fix();
    // Re-evaluated, the call would pass: the new version allows everything.
    await activateVersion(w, allowAll);
    const before = up.calls.refund ?? 0;
    expect(service(await call())).toMatchObject({ status: "denied", code: "POLICY_CHANGED" });
    expect(up.calls.refund ?? 0).toBe(before);
    // The window itself stays open (SPEC 3.3: open observe windows stay open).
    const open = await db.pool.query("select ended_at from observe_windows where agent_id = $1", [w.agentId]);
    expect(open.rows[0].ended_at).toBeNull();
    await a.close();
  });

  it("a call a person approved is not re-checked by activation: it runs through /mcp though the new version denies everything", async () => {
    const w = await world();
    const toolName = (
      await createMcpTool(db.pool, w.organizationId, {
        url: up.url,
        upstreamName: "refund",
        amountMapping: mapping,
      })
    ).name;
    const a = await mcpAgent(gw.gateway.url, w.key);
    const k = key();
    const call = () =>
      a.callTool({
        name: toolName,
        arguments: { order: "approved", amount: 500 },
        _meta: { "service/idempotency-key": k },
      }) as Promise<CallToolResult>;
    const pending = await call();
    expect(service(pending).code).toBe("APPROVAL_PENDING");
    await approve(w, service(pending).approval_request_id as string);
    await activateVersion(w, denyAll);
    // A new call is decided by the new version...
    const fresh = (await a.callTool({ name: toolName, arguments: { amount: 500 } })) as CallToolResult;
    expect(service(fresh)).toMatchObject({ status: "denied", code: "POLICY_DENIED" });
    // ...the approved one runs.
    const before = up.calls.refund ?? 0;
    const ran = await call();
    expect(ran.isError).toBeFalsy();
    expect(ran.structuredContent).toEqual({ echoed: { order: "approved", amount: 500 } });
    expect(up.calls.refund).toBe(before + 1);
    await a.close();
  });

  it("and through /v1/authorize: the approved decision-only call is authorized after a deny-all activation", async () => {
    const w = await world();
    const body = { tool: w.tool, arguments: { order: "approved", amount: 500 }, idempotency_key: key() };
    const pending = await gw.authorize(w.key, body);
    expect(pending.body.status).toBe("approval_pending");
    await approve(w, pending.body.approval_request_id);
    await activateVersion(w, denyAll);
    expect((await gw.authorize(w.key, { ...body, idempotency_key: key() })).body.code).toBe("POLICY_DENIED");
    expect((await gw.authorize(w.key, body)).body).toMatchObject({
      allowed: true,
      status: "authorized",
      protected_action_id: pending.body.protected_action_id,
    });
  });
});

describe("a gateway key revoked after a person approved (SPEC 3.8)", () => {
  it("the revoked key is refused; the approved call still runs through another key of the same agent", async () => {
    const w = await world();
    const other = await createGatewayKey(db.pool, gw.keyHashSecret, w.organizationId, w.agentId, w.ownerId);
    const toolName = (
      await createMcpTool(db.pool, w.organizationId, {
        url: up.url,
        upstreamName: "refund",
        amountMapping: mapping,
      })
    ).name;
    const k = key();
    const args = { order: "two-keys", amount: 500 };
    const first = await mcpAgent(gw.gateway.url, w.key);
    const pending = (await first.callTool({
      name: toolName,
      arguments: args,
      _meta: { "service/idempotency-key": k },
    })) as CallToolResult;
    await approve(w, service(pending).approval_request_id as string);
    await db.pool.query("update api_keys set revoked_at = now() where id = $1", [w.keyId]);
    const revoked = await fetch(`${gw.gateway.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${w.key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: toolName, arguments: args, _meta: { "service/idempotency-key": k } },
      }),
    });
    expect(revoked.status).toBe(401);
    await first.close().catch(() => undefined);

    const before = up.calls.refund ?? 0;
    const second = await mcpAgent(gw.gateway.url, other.key);
    const ran = (await second.callTool({
      name: toolName,
      arguments: args,
      _meta: { "service/idempotency-key": k },
    })) as CallToolResult;
    expect(ran.isError).toBeFalsy();
    expect((ran._meta as { service: { protected_action_id: string } }).service.protected_action_id).toBe(
      service(pending).protected_action_id,
    );
    expect(up.calls.refund).toBe(before + 1);
    await second.close();
  });
});

describe("a gateway key revoked after a person approved, decision-only (SPEC 3.8)", () => {
  it("the revoked key gets 401; another key of the agent is handed the approved authorization", async () => {
    const w = await world();
    const other = await createGatewayKey(db.pool, gw.keyHashSecret, w.organizationId, w.agentId, w.ownerId);
    const body = { tool: w.tool, arguments: { order: "two-keys", amount: 500 }, idempotency_key: key() };
    const pending = await gw.authorize(w.key, body);
    await approve(w, pending.body.approval_request_id);
    await db.pool.query("update api_keys set revoked_at = now() where id = $1", [w.keyId]);
    expect((await gw.authorize(w.key, body)).status).toBe(401);
    const res = await gw.authorize(other.key, body);
    expect(res.body).toMatchObject({
      allowed: true,
      status: "authorized",
      protected_action_id: pending.body.protected_action_id,
    });
    const { rows } = await db.pool.query("select outcome from receipts where id = $1", [res.body.receipt_id]);
    expect(rows[0].outcome).toBe("granted");
  });
});

describe("what a decision records for others", () => {
  it("a test key's calls carry environment test in the signed TASK (a live key's, live), and the receipt verifies", async () => {
    const w = await world();
    const testKey = await createGatewayKey(
      db.pool,
      gw.keyHashSecret,
      w.organizationId,
      w.agentId,
      w.ownerId,
      "test",
    );
    for (const [k, environment] of [
      [testKey.key, "test"],
      [w.key, "live"],
    ] as const) {
      const res = await gw.authorize(k, { tool: w.tool, arguments: { amount: 40 } });
      expect(res.body.status).toBe("authorized");
      const { rows } = await db.pool.query(
        "select pa.environment, r.bundle from protected_actions pa join receipts r on r.id = pa.receipt_id where pa.id = $1",
        [res.body.protected_action_id],
      );
      expect(rows[0].environment).toBe(environment);
      const bundle = JSON.parse(rows[0].bundle.toString("utf8"));
      const task = bundle.objects.find((o: { id: string }) => o.id === res.body.task_object_id);
      expect(task.body.type).toBe("TASK");
      expect(task.body.payload.environment).toBe(environment);
      const verification = verifyBundle(bundle, {
        trust: { issuers: [gw.gateway.identity.signer.kid], principals: [w.principal.kid] },
      });
      expect(verification.valid).toBe(true);
    }
  });

  it("action.allowed, action.denied, approval.requested and action.observe_override carry the policy object (SPEC 6.1), never the explanation or arguments", async () => {
    const w = await world();
    const { rows: v } = await db.pool.query("select digest from policy_versions where id = $1", [
      w.versionId,
    ]);
    const toolName = (
      await createMcpTool(db.pool, w.organizationId, {
        url: up.url,
        upstreamName: "refund",
        amountMapping: mapping,
      })
    ).name;
    const a = await mcpAgent(gw.gateway.url, w.key);
    const secret = `order-${randomBytes(6).toString("hex")}`;
    const run = async (amount: number) =>
      service((await a.callTool({ name: toolName, arguments: { order: secret, amount } })) as CallToolResult)
        ?.protected_action_id;
    const eventOf = async (type: string, actionId: string) => {
      const { rows } = await db.pool.query(
        "select data from events where organization_id = $1 and type = $2 and data->>'protected_action_id' = $3",
        [w.organizationId, type, actionId],
      );
      expect(rows).toHaveLength(1);
      return rows[0].data;
    };
    const policy = (rule: string, effect: string) => ({
      policy_id: w.policyId,
      version: 1,
      digest: v[0].digest,
      rule_id: rule,
      policy_effect: effect,
      enforcement: "enforce",
      relaxed: false,
      observe_window: null,
    });

    const allowedRes = (await a.callTool({
      name: toolName,
      arguments: { order: secret, amount: 7 },
    })) as CallToolResult;
    const allowedId = (allowedRes._meta as { service: { protected_action_id: string } }).service
      .protected_action_id;
    const allowed = await eventOf("action.allowed", allowedId);
    expect(allowed.policy).toEqual(policy("small", "allow"));

    const denied = await eventOf("action.denied", (await run(20000)) as string);
    expect(denied.policy).toEqual(policy("hard-cap", "deny"));
    expect(denied.reason.code).toBe("POLICY_DENIED");
    expect(denied.reason.message).toContain("hard-cap");

    const requested = await eventOf("approval.requested", (await run(500)) as string);
    expect(requested.policy).toEqual(policy("needs-approval", "require_approval"));

    const windowId = await openObserveWindow(w);
    const relaxedRes = (await a.callTool({
      name: toolName,
      arguments: { order: secret, amount: 500 },
    })) as CallToolResult;
    const relaxedId = (relaxedRes._meta as { service: { protected_action_id: string } }).service
      .protected_action_id;
    const override = await eventOf("action.observe_override", relaxedId);
    expect(override.policy).toEqual({
      ...policy("needs-approval", "require_approval"),
      enforcement: "observe",
      relaxed: true,
      observe_window: windowId,
    });
    await a.close();

    for (const data of [allowed, denied, requested, override]) {
      const text = JSON.stringify(data);
      expect(text).not.toContain(secret);
      expect(text).not.toContain("explanation");
      expect(data).not.toHaveProperty("explanation");
    }
  });
});

describe("an upstream result that is not canonical JSON (SPEC 7.3)", () => {
  it("OUTPUT_NOT_CANONICAL: upstream_error, the action failed with a failed receipt whose ids the refusal carries", async () => {
    const w = await world();
    const toolName = (
      await createMcpTool(db.pool, w.organizationId, {
        url: up.url,
        upstreamName: "surrogate",
        amountMapping: mapping,
      })
    ).name;
    const a = await mcpAgent(gw.gateway.url, w.key);
    const res = (await a.callTool({ name: toolName, arguments: { amount: 3 } })) as CallToolResult;
    await a.close();
    expect(res.isError).toBe(true);
    expect(service(res)).toMatchObject({ status: "upstream_error", code: "OUTPUT_NOT_CANONICAL" });
    expect(up.calls.surrogate).toBe(1);
    const { rows } = await db.pool.query(
      "select pa.status, pa.error_code, pa.result, r.id as receipt_id, r.outcome from protected_actions pa join receipts r on r.id = pa.receipt_id where pa.id = $1",
      [service(res).protected_action_id],
    );
    expect(rows[0]).toMatchObject({
      status: "failed",
      error_code: "OUTPUT_NOT_CANONICAL",
      result: null,
      outcome: "failed",
    });
    expect((res._meta as { service: { receipt_id: string } }).service.receipt_id).toBe(rows[0].receipt_id);
  });
});
