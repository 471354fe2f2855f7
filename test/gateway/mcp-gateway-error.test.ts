/**
 * SPEC 7.3 `upstream_error` GATEWAY_ERROR: the upstream was called but the Gateway could not
 * accept or store its result, so it may have acted. Provoked for real: the receipts table is
 * renamed while a real upstream holds the call, so the RESULT's write fails with a database that
 * is still reachable (a reachable database refusing the statement, not one that is down). The
 * agent (the official SDK client) gets a refusal result, not a JSON-RPC error; the action stays
 * `executing` for recovery to close (docs/gateway.md), and nothing of the result is recorded.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import {
  createAuthorizationWorld,
  createMcpTool,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { echoTool, startUpstream, type Upstream } from "../fixtures/upstream-tools.js";
import { mcpAgent, startTestGateway, type TestGateway } from "./harness.js";

let db: TestDatabase;
let gw: TestGateway;
let world: AuthorizationWorld;
let up: Upstream;
let agent: Client;
let held: string;
let release: () => void = () => undefined;
let heldReached: () => void = () => undefined;

beforeAll(async () => {
  db = await createTestDatabase();
  gw = await startTestGateway(db);
  world = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
  up = await startUpstream({
    tools: {
      held: async (args) => {
        heldReached();
        await new Promise<void>((r) => (release = r));
        return echoTool(args);
      },
    },
  });
  held = (
    await createMcpTool(db.pool, world.organizationId, {
      url: up.url,
      upstreamName: "held",
      amountMapping: { amount_path: "amount", currency: "EUR" },
    })
  ).name;
  agent = await mcpAgent(gw.gateway.url, world.key);
});
afterAll(async () => {
  release();
  await agent?.close();
  await gw?.close();
  await up?.close();
  await db?.drop();
});

describe("a result the Gateway cannot store after the upstream ran", () => {
  it("answers upstream_error GATEWAY_ERROR with the action's id; nothing of the result is recorded", async () => {
    const reached = new Promise<void>((r) => (heldReached = r));
    const running = agent.callTool({
      name: held,
      arguments: { order: "o-1", amount: 20 },
      _meta: { "service/idempotency-key": "gateway-error-1" },
    }) as Promise<CallToolResult>;
    await reached;
    await db.pool.query("alter table receipts rename to receipts_away");
    let res: CallToolResult;
    try {
      release();
      res = await running;
    } finally {
      await db.pool.query("alter table receipts_away rename to receipts");
    }
    expect(up.calls.held).toBe(1);
    expect(res.isError).toBe(true);
    const service = (res.structuredContent as { service: Record<string, unknown> }).service;
    expect(service).toMatchObject({ status: "upstream_error", code: "GATEWAY_ERROR" });
    expect(service.detail).toMatch(/may have acted/);
    expect(JSON.stringify(res)).not.toMatch(/receipts|relation/);
    const { rows } = await db.pool.query(
      "select status, receipt_id, (select count(*)::int from signed_objects o where o.protected_action_id = pa.id and o.type = 'RESULT') as results from protected_actions pa where pa.id = $1",
      [service.protected_action_id],
    );
    expect(rows).toEqual([{ status: "executing", receipt_id: null, results: 0 }]);
  });
});
