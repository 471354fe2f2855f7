/**
 * The MCP helper of @countersign/client (SPEC 4.2, 7.4) against a real
 * Gateway and a real upstream MCP server: bearer key, per-call metadata,
 * completed calls with `_meta.service`, refusals as typed results or thrown
 * with `throwOnRefusal`, paging to at most 1000 pages, and the errors.
 */
import { randomBytes } from "node:crypto";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decideApproval } from "../../core/src/approvals/index.js";
import {
  connectGateway,
  ServiceAuthError,
  ServiceError,
  ServiceHttpError,
  ServiceProtocolError,
  ServiceRefusalError,
  ServiceUnavailableError,
  type GatewayClient,
  type ToolRefusal,
} from "../../clients/typescript/src/index.js";
import {
  createAuthorizationWorld,
  createMcpTool,
  refundMapping,
  signDecision,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { echoTool, startUpstream, type Upstream } from "../fixtures/upstream-tools.js";
import { recorded, startTestGateway, type TestGateway } from "../gateway/harness.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import { startFakeServer } from "./fake-servers.js";
import { startEndlessPagingServer } from "./paging-mcp-server.js";

let db: TestDatabase;
let gw: TestGateway;
let world: AuthorizationWorld;
let up: Upstream;
let tool: string;
let gateway: GatewayClient;

beforeAll(async () => {
  db = await createTestDatabase();
  gw = await startTestGateway(db);
  world = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
  up = await startUpstream({ tools: { refund: echoTool } });
  tool = (
    await createMcpTool(db.pool, world.organizationId, {
      url: up.url,
      upstreamName: "refund",
      amountMapping: refundMapping,
    })
  ).name;
  gateway = await connectGateway({ gatewayUrl: gw.gateway.url, apiKey: world.key });
});
afterAll(async () => {
  await gateway?.close();
  await gw?.close();
  await up?.close();
  await db?.drop();
});

let n = 0;
const opKey = () => `op-${++n}-${Date.now()}`;

async function thrown(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ServiceError);
    return err as ServiceError;
  }
  throw new Error("expected a ServiceError");
}

describe("calls through the Gateway", () => {
  it("a completed call carries _meta.service as typed ids; the same idempotency key returns the stored outcome without running it again", async () => {
    const before = up.calls.refund ?? 0;
    const call = { name: tool, arguments: { order: "o-1", amount: 40 }, idempotencyKey: opKey() };
    const outcome = await gateway.callTool(call);
    if (!outcome.ok) throw new Error(`refused: ${outcome.refusal.code}`);
    expect(outcome.result.structuredContent).toEqual({ echoed: { order: "o-1", amount: 40 } });
    expect(outcome.service.protectedActionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(outcome.service.receiptId).toMatch(/^[0-9a-f-]{36}$/);
    expect(outcome.service.resultObjectId).toMatch(/^ko_/);
    expect(outcome.service.policy).toBeNull();
    const again = await gateway.callTool(call);
    expect(again).toEqual(outcome);
    expect(up.calls.refund).toBe(before + 1);
    const { rows } = await db.pool.query(
      "select status, idempotency_key from protected_actions where id = $1",
      [outcome.service.protectedActionId],
    );
    expect(rows[0]).toEqual({ status: "succeeded", idempotency_key: call.idempotencyKey });
  });

  it("a refusal is a typed result (denied POLICY_DENIED), the upstream not called", async () => {
    const before = up.calls.refund ?? 0;
    const outcome = await gateway.callTool({ name: tool, arguments: { order: "o-2", amount: 20000 } });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.refusal).toMatchObject({ status: "denied", code: "POLICY_DENIED", retryable: false });
    expect(outcome.refusal.protectedActionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(up.calls.refund ?? 0).toBe(before);
  });

  it("throwOnRefusal: ServiceRefusalError with the refusal's code, holding the refusal", async () => {
    const strict = await connectGateway({
      gatewayUrl: gw.gateway.url,
      apiKey: world.key,
      throwOnRefusal: true,
    });
    try {
      const err = await thrown(strict.callTool({ name: tool, arguments: { order: "o-3", amount: 20000 } }));
      expect(err).toBeInstanceOf(ServiceRefusalError);
      expect(err.code).toBe("POLICY_DENIED");
      expect((err as ServiceRefusalError<ToolRefusal>).refusal).toMatchObject({
        status: "denied",
        code: "POLICY_DENIED",
      });
      // Completed calls still return normally.
      expect((await strict.callTool({ name: tool, arguments: { order: "o-4", amount: 5 } })).ok).toBe(true);
    } finally {
      await strict.close();
    }
  });

  it("service/idempotency-key and service/wait-seconds: a held call waits for the person's approval, then runs once", async () => {
    const call = { name: tool, arguments: { order: "o-5", amount: 500 }, idempotencyKey: opKey() };
    const first = await gateway.callTool(call);
    if (first.ok) throw new Error("expected approval_pending");
    expect(first.refusal).toMatchObject({ status: "approval_pending", code: "APPROVAL_PENDING" });
    const before = up.calls.refund ?? 0;
    const waiting = gateway.callTool({ ...call, waitSeconds: 30 });
    await new Promise((r) => setTimeout(r, 200));
    const object = await signDecision(
      db.pool,
      first.refusal.approvalRequestId!,
      world.approver.signer,
      "APPROVAL",
    );
    await decideApproval(db.pool, {
      organizationId: world.organizationId,
      approvalRequestId: first.refusal.approvalRequestId!,
      userId: world.approver.userId,
      object,
      identity: gw.gateway.identity,
    });
    const done = await waiting;
    expect(done.ok).toBe(true);
    if (done.ok) expect(done.service.protectedActionId).toBe(first.refusal.protectedActionId);
    expect(up.calls.refund).toBe(before + 1);
  });

  it("listTools follows cursors over every page", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    for (let i = 0; i < 53; i++)
      await createMcpTool(db.pool, w.organizationId, {
        url: up.url,
        upstreamName: "refund",
        name: `t_${String(i).padStart(2, "0")}`,
      });
    const c = await connectGateway({ gatewayUrl: gw.gateway.url, apiKey: w.key });
    try {
      const tools = await c.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(
        Array.from({ length: 53 }, (_, i) => `t_${String(i).padStart(2, "0")}`),
      );
    } finally {
      await c.close();
    }
  });
});

describe("errors (SPEC 7.4)", () => {
  it("TOO_MANY_PAGES after exactly 1000 pages of an endless tools/list", async () => {
    const endless = await startEndlessPagingServer();
    // The helper speaks to any server at {gatewayUrl}/mcp; this one never stops paging.
    const c = await connectGateway({ gatewayUrl: endless.url, apiKey: world.key });
    try {
      const err = await thrown(c.listTools());
      expect(err.code).toBe("TOO_MANY_PAGES");
      expect(endless.pages()).toBe(1000);
    } finally {
      await c.close();
      await endless.close();
    }
  }, 120_000);

  it("NOT_A_SERVICE_RESULT: a successful result without _meta.service (an MCP server that is not the Gateway) is never success", async () => {
    const plain = await startUpstream({ tools: { refund: echoTool } });
    try {
      const c = await connectGateway({ gatewayUrl: plain.url.replace(/\/mcp$/, ""), apiKey: world.key });
      try {
        const err = await thrown(c.callTool({ name: "refund", arguments: { amount: 1 } }));
        expect(err).toBeInstanceOf(ServiceProtocolError);
        expect(err.code).toBe("NOT_A_SERVICE_RESULT");
      } finally {
        await c.close();
      }
    } finally {
      await plain.close();
    }
  });

  it("MALFORMED_API_KEY before connecting (trailing newline): nothing sent", async () => {
    const server = await startFakeServer({ kind: "answer", status: 200, body: "{}" });
    try {
      const err = await thrown(connectGateway({ gatewayUrl: server.url, apiKey: `${world.key}\n` }));
      expect(err).toBeInstanceOf(ServiceAuthError);
      expect(err.code).toBe("MALFORMED_API_KEY");
      expect(server.requests).toBe(0);
    } finally {
      await server.close();
    }
  });

  it("UNAUTHORIZED when the Gateway answers 401; nothing recorded", async () => {
    const before = await recorded(db.pool, world.organizationId);
    const unknown = world.key.replace(
      /_[A-Za-z0-9_-]{43}$/,
      `_${randomBytes(32).toString("base64url").slice(0, 43)}`,
    );
    const err = await thrown(connectGateway({ gatewayUrl: gw.gateway.url, apiKey: unknown }));
    expect(err).toBeInstanceOf(ServiceAuthError);
    expect(err.code).toBe("UNAUTHORIZED");
    expect(await recorded(db.pool, world.organizationId)).toEqual(before);
  });

  it("a redirect is never followed: ServiceHttpError, the Gateway it points to never asked", async () => {
    const before = await recorded(db.pool, world.organizationId);
    const server = await startFakeServer({
      kind: "redirect",
      status: 307,
      location: `${gw.gateway.url}/mcp`,
    });
    try {
      const err = await thrown(connectGateway({ gatewayUrl: server.url, apiKey: world.key }));
      expect(err).toBeInstanceOf(ServiceHttpError);
      expect(err).toMatchObject({ httpStatus: 307 });
      expect(server.requests).toBe(1);
    } finally {
      await server.close();
    }
    expect(await recorded(db.pool, world.organizationId)).toEqual(before);
  });

  it("a connection cut mid-request: ServiceUnavailableError NETWORK_ERROR, outcomeUnknown true", async () => {
    const server = await startFakeServer({ kind: "cut" });
    try {
      const err = await thrown(connectGateway({ gatewayUrl: server.url, apiKey: world.key }));
      expect(err).toBeInstanceOf(ServiceUnavailableError);
      expect(err).toMatchObject({ code: "NETWORK_ERROR", outcomeUnknown: true });
    } finally {
      await server.close();
    }
  });

  it("TIMEOUT when the Gateway holds a call past the client's timeout: outcome unknown, the Gateway's record kept", async () => {
    const call = { name: tool, arguments: { order: "o-timeout", amount: 500 }, idempotencyKey: opKey() };
    const first = await gateway.callTool(call);
    if (first.ok) throw new Error("expected approval_pending");
    // The Gateway waits up to 4 s for the person; the client gives up after 1 s.
    const err = await thrown(gateway.callTool({ ...call, waitSeconds: 4, timeoutMs: 1000 }));
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect(err).toMatchObject({ code: "TIMEOUT", outcomeUnknown: true });
    // Asking again with the same key answers what the Gateway recorded: still pending.
    const again = await gateway.callTool(call);
    expect(again.ok).toBe(false);
    if (!again.ok)
      expect(again.refusal).toMatchObject({
        status: "approval_pending",
        protectedActionId: first.refusal.protectedActionId,
      });
  });

  it("a JSON-RPC error marked unavailable is RPC_UNAVAILABLE (outcome known); any other JSON-RPC error is a protocol error", async () => {
    const failing = await startUpstream({
      tools: {
        unavailable: () => {
          throw new McpError(-32000, "the database is unavailable", {
            service: { status: "unavailable", code: "DATABASE_UNAVAILABLE", retryable: true },
          });
        },
        broken: () => {
          throw new McpError(-32603, "internal error");
        },
      },
    });
    try {
      const c = await connectGateway({ gatewayUrl: failing.url.replace(/\/mcp$/, ""), apiKey: world.key });
      try {
        const unavailable = await thrown(c.callTool({ name: "unavailable", arguments: {} }));
        expect(unavailable).toBeInstanceOf(ServiceUnavailableError);
        expect(unavailable).toMatchObject({ code: "RPC_UNAVAILABLE", outcomeUnknown: false });
        expect(unavailable.message).toContain("DATABASE_UNAVAILABLE");
        const broken = await thrown(c.callTool({ name: "broken", arguments: {} }));
        expect(broken).toBeInstanceOf(ServiceProtocolError);
        expect(broken.message).toContain("-32603");
      } finally {
        await c.close();
      }
      expect(failing.calls).toMatchObject({ unavailable: 1, broken: 1 });
    } finally {
      await failing.close();
    }
  });

  it("a 503 with the Gateway's unavailable body: ServiceUnavailableError with its code, outcome known", async () => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32000,
        message: "draining",
        data: { service: { status: "unavailable", code: "GATEWAY_SHUTTING_DOWN", retryable: true } },
      },
    });
    const server = await startFakeServer({
      kind: "answer",
      status: 503,
      body,
      headers: { "retry-after": "5" },
    });
    try {
      const err = await thrown(connectGateway({ gatewayUrl: server.url, apiKey: world.key }));
      expect(err).toMatchObject({
        code: "GATEWAY_SHUTTING_DOWN",
        outcomeUnknown: false,
        retryAfterSeconds: 5,
      });
    } finally {
      await server.close();
    }
  });
});
