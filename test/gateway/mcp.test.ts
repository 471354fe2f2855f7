/**
 * Gateway-enforced MCP (SPEC 1.2, 4.2, 7.3) with the official MCP SDK client
 * as the agent and real upstream MCP servers: listing, decisions, exactly-once
 * execution with receipts over the RESULT, replays, every upstream outcome,
 * binding pins, policy changes and observe windows, and the HTTP-level answers.
 */
import { randomBytes } from "node:crypto";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decideApproval } from "../../core/src/approvals/index.js";
import { verifyBundle } from "../../protocol/src/evidence/index.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import {
  createActivePolicy,
  createAuthorizationWorld,
  createDecisionOnlyTool,
  createMcpTool,
  signDecision,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { echoTool, startUpstream, type Upstream } from "../fixtures/upstream-tools.js";
import { mcpAgent, recorded, startTestGateway, type TestGateway } from "./harness.js";
import { jsonOf, type JsonBody } from "../fixtures/json.js";

let db: TestDatabase;
let gw: TestGateway;
let world: AuthorizationWorld;
let up: Upstream;
let agent: Client;
let tool: string;
const credentialKey = randomBytes(32);

beforeAll(async () => {
  db = await createTestDatabase();
  gw = await startTestGateway(db, { credentialKey, upstreamTimeoutMs: 1500 });
  world = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
  up = await startUpstream({
    tools: {
      refund: echoTool,
      failing: () => ({ content: [{ type: "text", text: "card declined" }], isError: true }),
      slow: async () => {
        await new Promise((r) => setTimeout(r, 4000));
        return { content: [{ type: "text", text: "late" }] };
      },
      nul: () => ({ content: [{ type: "text", text: "a\u0000b" }] }),
    },
  });
  tool = (
    await createMcpTool(db.pool, world.organizationId, {
      url: up.url,
      upstreamName: "refund",
      amountMapping: { amount_path: "amount", currency: "EUR" },
      credential: { key: credentialKey, authorization: "Bearer upstream-secret" },
    })
  ).name;
  agent = await mcpAgent(gw.gateway.url, world.key);
});
afterAll(async () => {
  await agent?.close();
  await gw?.close();
  await up?.close();
  await db?.drop();
});

let n = 0;
const key = () => `mcp-${++n}-${Date.now()}`;
const call = (name: string, args: Record<string, unknown>, meta: Record<string, unknown> = {}) =>
  agent.callTool({ name, arguments: args, _meta: meta }) as Promise<CallToolResult>;
const service = (r: CallToolResult) => (r.structuredContent as { service: Record<string, JsonBody> }).service;
const metaOf = (r: CallToolResult) => (r._meta as { service: Record<string, JsonBody> }).service;

async function addTool(
  upstreamName: string,
  extra: Partial<Parameters<typeof createMcpTool>[2]> = {},
  w = world,
  u = up,
) {
  return (
    await createMcpTool(db.pool, w.organizationId, {
      url: u.url,
      upstreamName,
      amountMapping: { amount_path: "amount", currency: "EUR" },
      ...extra,
    })
  ).name;
}

describe("the MCP endpoint with the SDK client", () => {
  it("initialize and ping work; tools/list lists MCP tools, never decision-only ones", async () => {
    await agent.ping();
    const decisionOnly = await createDecisionOnlyTool(db.pool, world.organizationId);
    const listed = await agent.listTools();
    const names = listed.tools.map((t) => t.name);
    expect(names).toContain(tool);
    expect(names).not.toContain(decisionOnly.name);
    expect(names).not.toContain(world.tool);
  });

  it("tools/list pages with cursors", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    for (let i = 0; i < 55; i++)
      await createMcpTool(db.pool, w.organizationId, {
        url: up.url,
        upstreamName: "refund",
        name: `t_${String(i).padStart(2, "0")}`,
      });
    const a = await mcpAgent(gw.gateway.url, w.key);
    const first = await a.listTools();
    expect(first.tools).toHaveLength(50);
    expect(first.nextCursor).toBeDefined();
    const second = await a.listTools({ cursor: first.nextCursor });
    expect(second.tools).toHaveLength(5);
    expect(second.nextCursor).toBeUndefined();
    expect(new Set([...first.tools, ...second.tools].map((t) => t.name)).size).toBe(55);
    await a.close();
  });
});

describe("tools/call: decision, then execution exactly once", () => {
  it("an allowed call runs once, with the stored credential, and returns the result with _meta.service and a verified receipt", async () => {
    const before = up.calls.refund ?? 0;
    const k = key();
    const res = await call(tool, { order: "o-1", amount: 40 }, { "service/idempotency-key": k });
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent).toEqual({ echoed: { order: "o-1", amount: 40 } });
    const m = metaOf(res);
    expect(m.protected_action_id).toMatch(/^[0-9a-f-]{36}$/);
    for (const id of ["receipt_object_id", "result_object_id"]) expect(m[id]).toMatch(/^ko_/);
    expect(up.calls.refund).toBe(before + 1);
    expect(up.authorizations.at(-1)).toBe("Bearer upstream-secret");
    const { rows } = await db.pool.query(
      "select pa.status, pa.execution, r.kind, r.outcome, r.bundle from protected_actions pa join receipts r on r.id = pa.receipt_id where pa.id = $1",
      [m.protected_action_id],
    );
    expect(rows[0]).toMatchObject({
      status: "succeeded",
      execution: "gateway",
      kind: "execution",
      outcome: "succeeded",
    });
    const bundle = JSON.parse(rows[0].bundle.toString("utf8"));
    expect(bundle.objects.slice(0, 4).map((o: { body: { type: string } }) => o.body.type)).toEqual([
      "TASK",
      "PROPOSAL",
      "EXECUTION",
      "RESULT",
    ]);
    expect(
      verifyBundle(bundle, {
        trust: { issuers: [gw.gateway.identity.signer.kid], principals: [world.principal.kid] },
      }).valid,
    ).toBe(true);

    // The same key again: the stored outcome, the upstream not called again.
    const again = await call(tool, { order: "o-1", amount: 40 }, { "service/idempotency-key": k });
    expect(again).toEqual(res);
    expect(up.calls.refund).toBe(before + 1);
  });

  it("a denied call is a refusal result with the explanation and a Why: text; nothing runs", async () => {
    const before = up.calls.refund ?? 0;
    const res = await call(tool, { amount: 20000 });
    expect(res.isError).toBe(true);
    expect(service(res)).toMatchObject({
      status: "denied",
      code: "POLICY_DENIED",
      policy: { schema: "service.cloud/agent-explanation@1", decided_by: { rule_id: "hard-cap" } },
    });
    expect(service(res).protected_action_id).toMatch(/^[0-9a-f-]{36}$/);
    expect((res.content as { text: string }[])[1]!.text).toMatch(/^Why: /);
    expect(up.calls.refund ?? 0).toBe(before);
  });

  it("a held call waits for a person; after the approval the identical call runs once", async () => {
    const k = key();
    const args = { order: "big", amount: 500 };
    const pending = await call(tool, args, { "service/idempotency-key": k });
    expect(service(pending)).toMatchObject({ status: "approval_pending", code: "APPROVAL_PENDING" });
    const object = await signDecision(
      db.pool,
      service(pending).approval_request_id,
      world.approver.signer,
      "APPROVAL",
    );
    await decideApproval(db.pool, {
      organizationId: world.organizationId,
      approvalRequestId: service(pending).approval_request_id,
      userId: world.approver.userId,
      object,
      identity: gw.gateway.identity,
    });
    const before = up.calls.refund ?? 0;
    const ran = await call(tool, args, { "service/idempotency-key": k });
    expect(ran.isError).toBeFalsy();
    expect(up.calls.refund).toBe(before + 1);
    const { rows } = await db.pool.query("select r.bundle from receipts r where r.id = $1", [
      metaOf(ran).receipt_id,
    ]);
    const types = JSON.parse(rows[0].bundle.toString("utf8"))
      .objects.slice(0, 5)
      .map((o: { body: { type: string } }) => o.body.type);
    expect(types).toEqual(["TASK", "PROPOSAL", "APPROVAL", "EXECUTION", "RESULT"]);
  });

  it("DECISION_ONLY_TOOL for a decision-only tool, nothing recorded; INVALID_META and INVALID_ARGUMENTS likewise", async () => {
    const before = await recorded(db.pool, world.organizationId);
    expect(service(await call(world.tool, { amount: 1 }))).toMatchObject({
      status: "invalid_request",
      code: "DECISION_ONLY_TOOL",
    });
    expect(service(await call(tool, { amount: 1 }, { "service/idempotency-key": "" }))).toMatchObject({
      code: "INVALID_META",
    });
    expect(service(await call(tool, { amount: 1 }, { "service/colour": "blue" }))).toMatchObject({
      code: "INVALID_META",
    });
    expect(service(await call(tool, { amount: 1.5 }))).toMatchObject({ code: "INVALID_ARGUMENTS" });
    expect(service(await call("no_such_tool", {}))).toMatchObject({ code: "UNKNOWN_TOOL" });
    expect(await recorded(db.pool, world.organizationId)).toEqual(before);
  });

  it("many identical calls with one key at once: exactly one upstream execution", async () => {
    const before = up.calls.refund ?? 0;
    const k = key();
    const agents = await Promise.all(Array.from({ length: 4 }, () => mcpAgent(gw.gateway.url, world.key)));
    const answers = await Promise.all(
      Array.from(
        { length: 16 },
        (_, i) =>
          agents[i % 4]!.callTool({
            name: tool,
            arguments: { order: "race", amount: 7 },
            _meta: { "service/idempotency-key": k },
          }) as Promise<CallToolResult>,
      ),
    );
    await Promise.all(agents.map((a) => a.close()));
    expect(up.calls.refund).toBe(before + 1);
    const ran = answers.filter((a) => !a.isError);
    expect(ran.length).toBeGreaterThanOrEqual(1);
    for (const a of answers.filter((x) => x.isError))
      expect(["EXECUTION_IN_PROGRESS", "DUPLICATE_IN_FLIGHT", "REPLAY"]).toContain(service(a).code);
    // Afterwards the key answers the stored outcome.
    const later = await call(tool, { order: "race", amount: 7 }, { "service/idempotency-key": k });
    expect(later.isError).toBeFalsy();
    expect(up.calls.refund).toBe(before + 1);
  });
});

describe("upstream outcomes (SPEC 7.3 upstream_error), each with a failed receipt", () => {
  async function failedWith(name: string, code: string) {
    const res = await call(name, { amount: 3 });
    expect(res.isError).toBe(true);
    expect(service(res)).toMatchObject({ status: "upstream_error", code });
    const m = metaOf(res);
    const { rows } = await db.pool.query(
      "select pa.status, pa.error_code, r.outcome, r.id as receipt_id, r.receipt_object_id, pa.result_object_id from protected_actions pa join receipts r on r.id = pa.receipt_id where pa.id = $1",
      [m.protected_action_id],
    );
    expect(rows[0]).toMatchObject({ status: "failed", error_code: code, outcome: "failed" });
    // SPEC 4.2: a refusal that ended with a receipt carries its ids in _meta.service.
    expect(m).toMatchObject({
      protected_action_id: service(res).protected_action_id,
      receipt_id: rows[0].receipt_id,
      receipt_object_id: rows[0].receipt_object_id,
      result_object_id: rows[0].result_object_id,
    });
    expect(m.receipt_object_id).toMatch(/^ko_/);
    return res;
  }

  it("UPSTREAM_TOOL_ERROR: the upstream's error result, its content kept", async () => {
    const res = await failedWith(await addTool("failing"), "UPSTREAM_TOOL_ERROR");
    expect(JSON.stringify(res.content)).toContain("card declined");
  });

  it("UPSTREAM_TIMEOUT after the call's time bound (may have acted)", async () => {
    await failedWith(await addTool("slow"), "UPSTREAM_TIMEOUT");
  });

  it("RESULT_NOT_STORABLE for a result PostgreSQL cannot hold", async () => {
    await failedWith(await addTool("nul"), "RESULT_NOT_STORABLE");
  });

  it("UPSTREAM_UNREACHABLE when nothing listens", async () => {
    const gone = await startUpstream({ tools: { refund: echoTool } });
    await gone.close();
    await failedWith(await addTool("refund", {}, world, gone), "UPSTREAM_UNREACHABLE");
  });

  it.each([
    ["http_500", "UPSTREAM_HTTP_ERROR"],
    ["garbage", "UPSTREAM_PROTOCOL_ERROR"],
    ["huge", "UPSTREAM_RESPONSE_TOO_LARGE"],
  ] as const)("%s upstream: %s", async (mode, code) => {
    const bad = await startUpstream({ tools: { refund: echoTool }, onCall: mode });
    try {
      await failedWith(await addTool("refund", {}, world, bad), code);
    } finally {
      await bad.close();
    }
  });

  it("UPSTREAM_BLOCKED for an address the rules refuse (private range)", async () => {
    await failedWith(
      await createMcpTool(db.pool, world.organizationId, {
        url: "https://10.1.2.3/mcp",
        upstreamName: "refund",
        amountMapping: { amount_path: "amount", currency: "EUR" },
      }).then((t) => t.name),
      "UPSTREAM_BLOCKED",
    );
  });

  it("UPSTREAM_CREDENTIAL_INVALID when the stored credential cannot be decrypted: nothing runs, the action stays approved", async () => {
    const name = await addTool("refund", { credential: { garbage: true } });
    const before = up.calls.refund ?? 0;
    const res = await call(name, { amount: 3 });
    expect(service(res)).toMatchObject({ status: "upstream_error", code: "UPSTREAM_CREDENTIAL_INVALID" });
    expect(up.calls.refund ?? 0).toBe(before);
    const { rows } = await db.pool.query("select status from protected_actions where id = $1", [
      service(res).protected_action_id,
    ]);
    expect(rows[0].status).toBe("approved");
  });
});

describe("re-checks before running (SPEC 1.7, 2.3, 3.3, 3.9)", () => {
  /** An allowed call that could not run yet (its server's credential is unusable), to change things before it runs. */
  async function allowedNotRun(w: AuthorizationWorld, u = up) {
    const t = await createMcpTool(db.pool, w.organizationId, {
      url: u.url,
      upstreamName: "refund",
      amountMapping: { amount_path: "amount", currency: "EUR" },
      credential: { garbage: true },
    });
    const a = await mcpAgent(gw.gateway.url, w.key);
    const k = key();
    const first = (await a.callTool({
      name: t.name,
      arguments: { amount: 5 },
      _meta: { "service/idempotency-key": k },
    })) as CallToolResult;
    expect(service(first).code).toBe("UPSTREAM_CREDENTIAL_INVALID");
    const fix = async () => {
      await db.pool.query("update mcp_servers set credential_encrypted = null where id = $1", [t.serverId]);
    };
    const again = async () =>
      (await a.callTool({
        name: t.name,
        arguments: { amount: 5 },
        _meta: { "service/idempotency-key": k },
      })) as CallToolResult;
    return { tool: t, agent: a, fix, again, actionId: service(first).protected_action_id as string };
  }

  it("POLICY_CHANGED: a version activated since the decision no longer allows the call", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    const pending = await allowedNotRun(w);
    await pending.fix();
    const stricter = await createActivePolicy(db.pool, w.organizationId, {
      revision: 1,
      default_effect: "deny",
      rules: [],
    });
    await db.pool.query("update policies set active_version_id = $2 where id = $1", [
      w.policyId,
      (await db.pool.query("select id from policy_versions where policy_id = $1", [stricter.policyId]))
        .rows[0].id,
    ]);
    const before = up.calls.refund ?? 0;
    expect(service(await pending.again())).toMatchObject({ status: "denied", code: "POLICY_CHANGED" });
    expect(up.calls.refund ?? 0).toBe(before);
    await pending.agent.close();
  });

  it("SUPERSEDED: a rollback with supersede_all covers the allowed call, even before its closer ran", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    const pending = await allowedNotRun(w);
    await pending.fix();
    const v2 = await db.pool.query(
      `insert into policy_versions (policy_id, organization_id, number, document, document_size, digest, language_revision, status)
       select policy_id, organization_id, 2, document, document_size, digest, language_revision, 'active' from policy_versions where id = $1 returning id`,
      [w.versionId],
    );
    await db.pool.query("update policies set active_version_id = $2 where id = $1", [
      w.policyId,
      v2.rows[0].id,
    ]);
    await db.pool.query(
      "insert into policy_supersessions (organization_id, policy_id, version_id, scope, reason) values ($1, $2, $3, 'supersede_all', 'rollback')",
      [w.organizationId, w.policyId, v2.rows[0].id],
    );
    const before = up.calls.refund ?? 0;
    expect(service(await pending.again())).toMatchObject({ status: "expired", code: "SUPERSEDED" });
    expect(up.calls.refund ?? 0).toBe(before);
    await pending.agent.close();
  });

  it("UPSTREAM_CHANGED: the tool's binding changed since the decision", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    const pending = await allowedNotRun(w);
    await pending.fix();
    await db.pool.query(
      'update tools set binding = binding || \'{"upstream_name": "other"}\', authorized_binding = binding || \'{"upstream_name": "other"}\' where id = $1',
      [pending.tool.id],
    );
    expect(service(await pending.again())).toMatchObject({ status: "denied", code: "UPSTREAM_CHANGED" });
    await pending.agent.close();
  });

  it("a tool whose binding is not authorized: TOOL_REAUTHORIZATION_REQUIRED, nothing recorded", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    const t = await createMcpTool(db.pool, w.organizationId, { url: up.url, upstreamName: "refund" });
    await db.pool.query("update tools set binding = binding || '{\"credential_version\": 9}' where id = $1", [
      t.id,
    ]);
    const before = await recorded(db.pool, w.organizationId);
    const a = await mcpAgent(gw.gateway.url, w.key);
    expect(service((await a.callTool({ name: t.name, arguments: {} })) as CallToolResult)).toMatchObject({
      status: "denied",
      code: "TOOL_REAUTHORIZATION_REQUIRED",
    });
    expect(await recorded(db.pool, w.organizationId)).toEqual(before);
    await a.close();
  });

  it("observe windows: a relaxed call runs with _meta.service.policy; once the window ends an unrun relaxed call is OBSERVE_ENDED", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    await db.pool.query(
      "insert into observe_windows (organization_id, agent_id, hours, ends_at, live) values ($1, $2, 1, now() + interval '1 hour', true)",
      [w.organizationId, w.agentId],
    );
    const t = await createMcpTool(db.pool, w.organizationId, {
      url: up.url,
      upstreamName: "refund",
      amountMapping: { amount_path: "amount", currency: "EUR" },
    });
    const a = await mcpAgent(gw.gateway.url, w.key);
    const ran = (await a.callTool({ name: t.name, arguments: { amount: 500 } })) as CallToolResult;
    expect(ran.isError).toBeFalsy();
    expect(metaOf(ran).policy).toMatchObject({
      enforcement: "observe",
      relaxed: true,
      policy_effect: "require_approval",
      rule_id: "needs-approval",
    });
    expect(metaOf(ran).policy.observe_ends_at).toBeDefined();
    await a.close();

    const held = await createMcpTool(db.pool, w.organizationId, {
      url: up.url,
      upstreamName: "refund",
      amountMapping: { amount_path: "amount", currency: "EUR" },
      credential: { garbage: true },
    });
    const b = await mcpAgent(gw.gateway.url, w.key);
    const k = key();
    expect(
      service(
        (await b.callTool({
          name: held.name,
          arguments: { amount: 500 },
          _meta: { "service/idempotency-key": k },
        })) as CallToolResult,
      ).code,
    ).toBe("UPSTREAM_CREDENTIAL_INVALID");
    await db.pool.query("update mcp_servers set credential_encrypted = null where id = $1", [held.serverId]);
    await db.pool.query(
      "update observe_windows set ended_at = now(), end_reason = 'ended' where agent_id = $1",
      [w.agentId],
    );
    expect(
      service(
        (await b.callTool({
          name: held.name,
          arguments: { amount: 500 },
          _meta: { "service/idempotency-key": k },
        })) as CallToolResult,
      ),
    ).toMatchObject({ code: "OBSERVE_ENDED" });
    await b.close();
  });
});

describe("HTTP-level answers of /mcp (SPEC 7.3)", () => {
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${gw.gateway.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body,
    });
  const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });

  it("401 -32001 without a valid key", async () => {
    const res = await post(ping);
    expect(res.status).toBe(401);
    expect((await jsonOf(res)).error.code).toBe(-32001);
  });

  it("405 for GET, 400 -32700 for invalid JSON, 413 -32600 over 1 MiB", async () => {
    const auth = { authorization: `Bearer ${world.key}` };
    const get = await fetch(`${gw.gateway.url}/mcp`, { headers: auth });
    expect(get.status).toBe(405);
    const bad = await post("{nope", auth);
    expect(bad.status).toBe(400);
    expect((await jsonOf(bad)).error.code).toBe(-32700);
    const big = await post(
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(1024 * 1024) } }),
      auth,
    );
    expect(big.status).toBe(413);
    expect((await jsonOf(big)).error.code).toBe(-32600);
  });

  it("a batch costs one token per message: 429 -32000 with Retry-After once the bucket is short", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    await db.pool.query(
      "insert into rate_limit_buckets (api_key_id, tokens, refilled_at) values ($1, 3, now() + interval '10 seconds')",
      [w.keyId],
    );
    const batch = JSON.stringify([1, 2, 3, 4].map((id) => ({ jsonrpc: "2.0", id, method: "ping" })));
    const res = await post(batch, { authorization: `Bearer ${w.key}` });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await jsonOf(res)).error.code).toBe(-32000);
  });

  it("metrics count upstream calls by outcome", async () => {
    const text = await (await fetch(`${gw.gateway.url}/metrics`)).text();
    expect(text).toMatch(/countersign_upstream_calls_total\{outcome="ok"\} [1-9]/);
    expect(text).toMatch(/countersign_upstream_calls_total\{outcome="UPSTREAM_TIMEOUT"\} 1/);
    expect(text).toContain("countersign_upstream_duration_seconds_bucket");
    expect(text).toMatch(/countersign_gateway_write_batch_size_count\{write="result"\} [1-9]/);
  });
});
