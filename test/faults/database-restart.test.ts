/**
 * Every server survives losing its database: a Cloud API process and a
 * Gateway process on a PostgreSQL that is shut down fast (as `pg_ctl restart
 * -m fast` does) and, later, whose postmaster is SIGKILLed. While it is down
 * they answer the spec's retryable 503 with Retry-After in each protocol's
 * shape; once it is back they serve again by themselves, with the same
 * process, and a Gateway's approval wait is woken through its LISTEN
 * connection again.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decideApproval } from "../../core/src/approvals/index.js";
import { registerGatewayIdentity } from "../../core/src/identities/index.js";
import { generateSeed } from "../../protocol/src/evidence/index.js";
import { insertApiKey } from "../../core/src/keys/index.js";
import {
  createAuthorizationWorld,
  createMcpTool,
  refundMapping,
  signDecision,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { echoTool, startUpstream, type Upstream } from "../fixtures/upstream-tools.js";
import { startRestartablePostgres, type RestartablePostgres } from "../fixtures/restartable-postgres.js";
import { authorizeAt, startGatewayProcess, type GatewayProcess } from "../multi-replica/gateway-process.js";
import { startApiProcess, type ApiProcess } from "../webhooks/api-process.js";
import { jsonOf } from "../fixtures/json.js";

let pg: RestartablePostgres;
let api: ApiProcess;
let gateway: GatewayProcess;
let world: AuthorizationWorld;
let managementKey: string;
let upstream: Upstream;
let mcpTool: string;
const keyHashSecret = randomBytes(32);
const signingKey = generateSeed();

beforeAll(async () => {
  pg = await startRestartablePostgres();
  world = await createAuthorizationWorld(pg.pool, keyHashSecret);
  managementKey = (
    await insertApiKey(pg.pool, keyHashSecret, {
      organizationId: world.organizationId,
      kind: "management",
      environment: "live",
      name: "reader",
      scopes: ["read"],
    })
  ).key;
  upstream = await startUpstream({ tools: { refund: echoTool } });
  mcpTool = (
    await createMcpTool(pg.pool, world.organizationId, {
      url: upstream.url,
      upstreamName: "refund",
      amountMapping: refundMapping,
    })
  ).name;
  [api, gateway] = await Promise.all([
    startApiProcess({ databaseUrl: pg.url, credentialKey: randomBytes(32), keyHashSecret }),
    startGatewayProcess({
      databaseUrl: pg.url,
      keyHashSecret,
      signingKey,
      env: { COUNTERSIGN_ALLOW_LOOPBACK_URLS: "true" },
    }),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all([api?.kill("SIGTERM"), gateway?.stop()]);
  await upstream?.close();
  await pg?.close();
});

let n = 0;
const listActions = () =>
  fetch(`${api.url}/api/v1/orgs/${world.organizationId}/actions?limit=1`, {
    headers: { authorization: `Bearer ${managementKey}` },
  });
const authorize = () =>
  authorizeAt(gateway.url, world.key, { tool: world.tool, arguments: { order: `o-${n++}`, amount: 5 } });
const mcpInitialize = () =>
  fetch(`${gateway.url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${world.key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "fault-test", version: "1" },
      },
    }),
  });

const mcpCall = async (args: Record<string, unknown>, meta: Record<string, unknown>) => {
  const res = await fetch(`${gateway.url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${world.key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: mcpTool, arguments: args, _meta: meta },
    }),
  });
  return { status: res.status, body: await jsonOf(res) };
};

/** Each server answers as when nothing happened. */
async function serving(): Promise<boolean> {
  const [a, g, m] = await Promise.all([listActions(), authorize(), mcpInitialize()]).catch(() => [] as never);
  if (!a) return false;
  return a.status === 200 && g.status === 200 && g.body.status === "authorized" && m.status === 200;
}

async function eventually(cond: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end)
      throw new Error(`not serving again; api output: ${api.output()}\ngateway output: ${gateway.output()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** What every server answers while the database is down: the retryable 503 of its protocol. */
async function expectUnavailable(): Promise<void> {
  const a = await listActions();
  expect(a.status).toBe(503);
  expect(a.headers.get("retry-after")).toBe("5");
  expect(a.headers.get("x-request-id")).toBeTruthy();
  expect(a.headers.get("cache-control")).toBe("no-store");
  expect((await jsonOf(a)).error).toMatchObject({ code: "SERVICE_UNAVAILABLE", message: expect.any(String) });

  const res = await fetch(`${gateway.url}/v1/authorize`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${world.key}` },
    body: JSON.stringify({ tool: world.tool, arguments: { order: "down", amount: 5 } }),
  });
  expect(res.status).toBe(503);
  expect(res.headers.get("retry-after")).toBe("5");
  expect(await jsonOf(res)).toMatchObject({
    allowed: false,
    status: "unavailable",
    code: "DATABASE_UNAVAILABLE",
    retryable: true,
  });

  const m = await mcpInitialize();
  expect(m.status).toBe(503);
  expect(m.headers.get("retry-after")).toBe("5");
  expect((await jsonOf(m)).error.data.service).toEqual({
    status: "unavailable",
    code: "DATABASE_UNAVAILABLE",
    retryable: true,
  });
}

async function waitingCalls(value: number): Promise<void> {
  for (;;) {
    const text = await (await fetch(`${gateway.url}/metrics`)).text();
    if (Number(text.match(/^countersign_approval_waits (\d+)/m)?.[1]) === value) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

function expectAlive(): void {
  expect(api.alive(), api.output()).toBe(true);
  expect(gateway.alive(), gateway.output()).toBe(true);
  for (const out of [api.output(), gateway.output()])
    expect(out).not.toMatch(
      /Unhandled 'error' event|uncaughtException|Connection terminated unexpectedly\n\s+at/,
    );
}

describe.each(["fast", "kill"] as const)(
  "PostgreSQL stopped (%s) under an api and a Gateway process",
  (mode) => {
    it(
      "they stay up, answer 503 with Retry-After while it is down, and serve again by themselves once it is back",
      { timeout: 120_000 },
      async () => {
        await eventually(serving);
        // Calls held open waiting for a person when the database goes: their re-read fails mid-request.
        const args = { order: `held-${mode}`, amount: 500 };
        const idempotencyKey = `held-${mode}-${Date.now()}`;
        expect(
          (
            await authorizeAt(gateway.url, world.key, {
              tool: world.tool,
              arguments: args,
              idempotency_key: idempotencyKey,
            })
          ).body.status,
        ).toBe("approval_pending");
        const mcpMeta = { "service/idempotency-key": `mcp-${idempotencyKey}` };
        expect((await mcpCall(args, mcpMeta)).body.result.structuredContent.service.status).toBe(
          "approval_pending",
        );
        const heldAuthorize = fetch(`${gateway.url}/v1/authorize`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${world.key}` },
          body: JSON.stringify({
            tool: world.tool,
            arguments: args,
            idempotency_key: idempotencyKey,
            wait_seconds: 30,
          }),
        });
        const heldMcp = mcpCall(args, { ...mcpMeta, "service/wait-seconds": 30 });
        await waitingCalls(2);
        await pg.stop(mode);
        const held = await heldAuthorize;
        expect(held.status).toBe(503);
        expect(held.headers.get("retry-after")).toBe("5");
        expect(await jsonOf(held)).toMatchObject({
          allowed: false,
          status: "unavailable",
          code: "DATABASE_UNAVAILABLE",
          retryable: true,
        });
        // A tools/call refusal is a tool result (the HTTP answer was already under way).
        const heldTool = await heldMcp;
        expect(heldTool.body.error).toBeUndefined();
        expect(heldTool.body.result).toMatchObject({
          isError: true,
          structuredContent: {
            service: { status: "unavailable", code: "DATABASE_UNAVAILABLE", retryable: true },
          },
        });
        // Idle pooled connections and the Gateway's LISTEN connection have all just lost their server.
        await new Promise((r) => setTimeout(r, 500));
        expectAlive();
        await expectUnavailable();
        expectAlive();
        await pg.start();
        await eventually(serving);
        expectAlive();
      },
    );

    it(
      "a Gateway's approval wait is woken through its LISTEN connection again",
      { timeout: 60_000 },
      async () => {
        const body = {
          tool: world.tool,
          arguments: { order: `wake-${mode}`, amount: 500 },
          idempotency_key: `wake-${mode}-${Date.now()}`,
        };
        const pending = await authorizeAt(gateway.url, world.key, body);
        expect(pending.body.status).toBe("approval_pending");
        const held = authorizeAt(gateway.url, world.key, { ...body, wait_seconds: 30 });
        // The decision is recorded by this test process, as the Cloud API would, once the Gateway holds
        // the call (its wait gauge says so): only a notification can wake it.
        await waitingCalls(1);
        const identity = await registerGatewayIdentity(pg.pool, signingKey);
        const object = await signDecision(
          pg.pool,
          pending.body.approval_request_id,
          world.approver.signer,
          "APPROVAL",
        );
        await decideApproval(pg.pool, {
          organizationId: world.organizationId,
          approvalRequestId: pending.body.approval_request_id,
          userId: world.approver.userId,
          object,
          identity,
        });
        expect((await held).body).toMatchObject({
          allowed: true,
          status: "authorized",
          protected_action_id: pending.body.protected_action_id,
        });
      },
    );
  },
);
