/**
 * One persistent MCP session per upstream server per Gateway process: calls
 * after the first reuse the session (no initialize per call), and when the
 * server forgets it (a restart) the next call opens a new session and runs
 * exactly once.
 */
import { randomBytes } from "node:crypto";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import {
  createAuthorizationWorld,
  createMcpTool,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { startStatefulUpstream, type StatefulUpstream } from "../fixtures/stateful-upstream.js";
import { mcpAgent, startTestGateway, type TestGateway } from "./harness.js";

let db: TestDatabase;
let gw: TestGateway;
let world: AuthorizationWorld;
let up: StatefulUpstream;
let agent: Client;
let tool: string;

/** The name of a new tool running the upstream's `refund`. */
const refundToolAt = async (url: string) =>
  (
    await createMcpTool(db.pool, world.organizationId, {
      url,
      upstreamName: "refund",
      amountMapping: { amount_path: "amount", currency: "EUR" },
    })
  ).name;

beforeAll(async () => {
  db = await createTestDatabase();
  gw = await startTestGateway(db);
  world = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
  up = await startStatefulUpstream("refund");
  tool = await refundToolAt(up.url);
  agent = await mcpAgent(gw.gateway.url, world.key);
});
afterAll(async () => {
  await agent?.close();
  await gw?.close();
  await up?.close();
  await db?.drop();
});

const call = (key: string) =>
  agent.callTool({
    name: tool,
    arguments: { amount: 5 },
    _meta: { "service/idempotency-key": `${key}-${randomBytes(4).toString("hex")}` },
  }) as Promise<CallToolResult>;
/** A call that ran answers the upstream's result with the receipt in `_meta.service`; anything else is a refusal. */
const ran = (r: CallToolResult) =>
  !r.isError &&
  typeof (r._meta as { service?: { receipt_id?: string } } | undefined)?.service?.receipt_id === "string";
const actionOf = (r: CallToolResult) =>
  (r._meta as { service: { protected_action_id: string } }).service.protected_action_id;

describe("persistent upstream sessions", () => {
  it("calls after the first reuse the session: one initialize for many calls", async () => {
    for (let i = 0; i < 3; i++) expect(ran(await call("reuse"))).toBe(true);
    // Concurrent calls share it too.
    const many = await Promise.all(Array.from({ length: 5 }, () => call("together")));
    expect(many.map(ran)).toEqual(Array(5).fill(true));
    expect(up.calls).toBe(8);
    expect(up.initialized).toBe(1);
  });

  it("a session the server forgot is opened again, and the call runs exactly once", async () => {
    const before = { calls: up.calls, initialized: up.initialized, unknown: up.unknownSessions };
    await up.forget();
    const answer = await call("after-restart");
    expect(ran(answer)).toBe(true);
    expect(up.unknownSessions - before.unknown).toBe(1); // the call on the old session was refused, not run
    expect(up.calls - before.calls).toBe(1);
    expect(up.initialized - before.initialized).toBe(1);
    const { rows } = await db.pool.query(
      "select count(*)::int as n from receipts where protected_action_id = $1",
      [actionOf(answer)],
    );
    expect(rows[0].n).toBe(1);
    // And the new session serves the next call without another initialize.
    expect(ran(await call("next"))).toBe(true);
    expect(up.initialized - before.initialized).toBe(1);
  });
});

// Many real servers answer every POST as an SSE stream (the SDK server's default); the Gateway reads
// those within the call's 1 MiB as it reads JSON answers.
describe("an upstream answering with SSE streams", () => {
  let sse: StatefulUpstream;
  let sseTool: string;
  beforeAll(async () => {
    sse = await startStatefulUpstream("refund", { sse: true });
    sseTool = await refundToolAt(sse.url);
  });
  afterAll(() => sse?.close());

  const callSse = (args: Record<string, unknown>) =>
    agent.callTool({
      name: sseTool,
      arguments: args,
      _meta: { "service/idempotency-key": `sse-${randomBytes(4).toString("hex")}` },
    }) as Promise<CallToolResult>;

  it("runs calls on one session and answers the upstream's result", async () => {
    for (let i = 0; i < 3; i++) {
      const answer = await callSse({ amount: 5 });
      expect(ran(answer)).toBe(true);
      expect(answer.structuredContent).toMatchObject({ echoed: { amount: 5 } });
    }
    expect(sse.calls).toBe(3);
    expect(sse.initialized).toBe(1);
  });

  it("an SSE answer over 1 MiB is UPSTREAM_RESPONSE_TOO_LARGE, recorded as failed", async () => {
    const answer = await callSse({ amount: 5, huge: true });
    const service = (answer.structuredContent as { service: { status: string; code: string } }).service;
    expect(service).toMatchObject({ status: "upstream_error", code: "UPSTREAM_RESPONSE_TOO_LARGE" });
    const { rows } = await db.pool.query("select status, error_code from protected_actions where id = $1", [
      actionOf(answer),
    ]);
    expect(rows[0]).toEqual({ status: "failed", error_code: "UPSTREAM_RESPONSE_TOO_LARGE" });
    // The broken exchange dropped the session; the next call opens a new one and runs.
    expect(ran(await callSse({ amount: 5 }))).toBe(true);
  });
});

describe("a JSON answer over 1 MiB on a session", () => {
  it("is UPSTREAM_RESPONSE_TOO_LARGE, and the next call runs", async () => {
    const answer = (await agent.callTool({
      name: tool,
      arguments: { amount: 5, huge: true },
      _meta: { "service/idempotency-key": `huge-${randomBytes(4).toString("hex")}` },
    })) as CallToolResult;
    const service = (answer.structuredContent as { service: { status: string; code: string } }).service;
    expect(service).toMatchObject({ status: "upstream_error", code: "UPSTREAM_RESPONSE_TOO_LARGE" });
    expect(ran(await call("after-huge"))).toBe(true);
  });
});
