/**
 * What a tools/call repeating an idempotency key answers once the action was closed or is being
 * run (SPEC 4.2, 7.3): a rejected or cancelled call carries its closure receipt's ids in
 * `_meta.service`, and a call that finds the same call run by another request answers status
 * `replay` with the exact code of its situation (EXECUTION_IN_PROGRESS, DUPLICATE_IN_FLIGHT, REPLAY).
 * The official SDK client is the agent; the upstream is a real MCP server whose tool the test holds.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cancelAction } from "../../core/src/actions/cancel.js";
import { decideApproval } from "../../core/src/approvals/index.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import {
  createAuthorizationWorld,
  createMcpTool,
  signDecision,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { echoTool, startUpstream, type Upstream } from "../fixtures/upstream-tools.js";
import type { JsonBody } from "../fixtures/json.js";
import { signCancellation } from "../evidence/world.js";
import { mcpAgent, startTestGateway, type TestGateway } from "./harness.js";

let db: TestDatabase;
let gw: TestGateway;
let world: AuthorizationWorld;
let up: Upstream;
let agent: Client;
let tool: string;
let held: string;
/** Calls of the `held` tool wait here until the test lets them finish. */
let release: () => void = () => undefined;
let heldReached: () => void = () => undefined;

beforeAll(async () => {
  db = await createTestDatabase();
  gw = await startTestGateway(db);
  world = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
  up = await startUpstream({
    tools: {
      refund: echoTool,
      held: async (args) => {
        heldReached();
        await new Promise<void>((r) => (release = r));
        return echoTool(args);
      },
    },
  });
  const mapping = { amount_path: "amount", currency: "EUR" };
  tool = (
    await createMcpTool(db.pool, world.organizationId, {
      url: up.url,
      upstreamName: "refund",
      amountMapping: mapping,
    })
  ).name;
  held = (
    await createMcpTool(db.pool, world.organizationId, {
      url: up.url,
      upstreamName: "held",
      amountMapping: mapping,
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

let n = 0;
const key = () => `closure-${++n}-${Date.now()}`;
const call = (name: string, args: Record<string, unknown>, k: string, a = agent) =>
  a.callTool({ name, arguments: args, _meta: { "service/idempotency-key": k } }) as Promise<CallToolResult>;
const service = (r: CallToolResult) => (r.structuredContent as { service: Record<string, JsonBody> }).service;
const metaOf = (r: CallToolResult) =>
  (r._meta as { service?: Record<string, JsonBody> } | undefined)?.service;

async function receiptOf(actionId: string) {
  const { rows } = await db.pool.query(
    "select r.id, r.receipt_object_id, r.kind, r.outcome from receipts r join protected_actions pa on pa.receipt_id = r.id where pa.id = $1",
    [actionId],
  );
  return rows[0] as { id: string; receipt_object_id: string; kind: string; outcome: string };
}

/** A held call (amount over 100 needs an admin), and the approval request it waits on. */
async function pendingCall(name = tool, amount = 500) {
  const k = key();
  const args = { order: `o-${n}`, amount };
  const first = await call(name, args, k);
  expect(service(first)).toMatchObject({ status: "approval_pending", code: "APPROVAL_PENDING" });
  // A call still open has no receipt, so its refusal carries none.
  expect(metaOf(first)).toBeUndefined();
  return {
    k,
    args,
    actionId: service(first).protected_action_id as string,
    approvalId: service(first).approval_request_id as string,
  };
}

async function decide(approvalId: string, type: "APPROVAL" | "REJECTION") {
  await decideApproval(db.pool, {
    organizationId: world.organizationId,
    approvalRequestId: approvalId,
    userId: world.approver.userId,
    object: await signDecision(db.pool, approvalId, world.approver.signer, type),
    identity: gw.gateway.identity,
  });
}

describe("refusals that ended with a receipt carry its ids in _meta.service (SPEC 4.2)", () => {
  it("rejected: REJECTED with the closure receipt's receipt_id and receipt_object_id", async () => {
    const p = await pendingCall();
    await decide(p.approvalId, "REJECTION");
    const res = await call(tool, p.args, p.k);
    expect(res.isError).toBe(true);
    expect(service(res)).toMatchObject({
      status: "rejected",
      code: "REJECTED",
      protected_action_id: p.actionId,
    });
    const receipt = await receiptOf(p.actionId);
    expect(receipt).toMatchObject({ kind: "closure", outcome: "final" });
    expect(metaOf(res)).toEqual({
      protected_action_id: p.actionId,
      receipt_id: receipt.id,
      receipt_object_id: receipt.receipt_object_id,
    });
  });

  it("cancelled: CANCELLED with the closure receipt's ids", async () => {
    const p = await pendingCall();
    await cancelAction(db.pool, {
      organizationId: world.organizationId,
      protectedActionId: p.actionId,
      object: await signCancellation(db.pool, p.actionId, world.principal),
      identity: gw.gateway.identity,
    });
    const res = await call(tool, p.args, p.k);
    expect(service(res)).toMatchObject({
      status: "cancelled",
      code: "CANCELLED",
      protected_action_id: p.actionId,
    });
    const receipt = await receiptOf(p.actionId);
    expect(receipt).toMatchObject({ kind: "closure", outcome: "final" });
    expect(metaOf(res)).toEqual({
      protected_action_id: p.actionId,
      receipt_id: receipt.id,
      receipt_object_id: receipt.receipt_object_id,
    });
  });

  it("denied: no receipt exists, so no _meta.service", async () => {
    const res = await call(tool, { amount: 20000 }, key());
    expect(service(res)).toMatchObject({ status: "denied", code: "POLICY_DENIED" });
    expect(metaOf(res)).toBeUndefined();
  });
});

/** Holds the action's row lock in a transaction of its own until `finish` commits (or rolls back). */
async function lockAction(actionId: string) {
  const c = await db.pool.connect();
  await c.query("begin");
  await c.query("select id from protected_actions where id = $1 for update", [actionId]);
  return {
    async finish(status?: string) {
      if (status) await c.query("update protected_actions set status = $2 where id = $1", [actionId, status]);
      await c.query("commit");
      c.release();
    },
  };
}

/** Waits until `count` sessions wait for a row lock (the repeated calls' claims under lockAction). */
async function lockWaiters(count: number) {
  for (;;) {
    const { rows } = await db.pool.query(
      "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
    );
    if (rows[0].n >= count) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("status replay and its exact code (SPEC 7.3)", () => {
  it("EXECUTION_IN_PROGRESS: the same key repeated while its call runs", async () => {
    const k = key();
    const args = { order: "running", amount: 7 };
    const reached = new Promise<void>((r) => (heldReached = r));
    const running = call(held, args, k);
    await reached;
    const before = up.calls.held;
    const again = await call(held, args, k);
    expect(again.isError).toBe(true);
    expect(service(again)).toMatchObject({ status: "replay", code: "EXECUTION_IN_PROGRESS" });
    release();
    const ran = await running;
    expect(ran.isError).toBeFalsy();
    expect(service(again).protected_action_id).toBe(metaOf(ran)!.protected_action_id);
    expect(up.calls.held).toBe(before);
  });

  it("DUPLICATE_IN_FLIGHT: two requests repeat an approved call at once; one runs it, the other finds it running", async () => {
    const p = await pendingCall(held);
    await decide(p.approvalId, "APPROVAL");
    const lock = await lockAction(p.actionId);
    const second = await mcpAgent(gw.gateway.url, world.key);
    const answers = [call(held, p.args, p.k), call(held, p.args, p.k, second)];
    await lockWaiters(2);
    await lock.finish();
    // The request that claimed the call waits for the held upstream, so the other answers first.
    const first = await Promise.any(answers);
    expect(service(first)).toMatchObject({
      status: "replay",
      code: "DUPLICATE_IN_FLIGHT",
      protected_action_id: p.actionId,
    });
    release();
    const all = await Promise.all(answers);
    await second.close();
    expect(all.filter((r) => !r.isError)).toHaveLength(1);
    expect(all.filter((r) => r.isError)).toEqual([first]);
  });

  it("REPLAY: another request ran the approved call while this one waited to claim it", async () => {
    const p = await pendingCall();
    await decide(p.approvalId, "APPROVAL");
    const lock = await lockAction(p.actionId);
    const before = up.calls.refund ?? 0;
    const answer = call(tool, p.args, p.k);
    await lockWaiters(1);
    // What the other request's run leaves: the action finished.
    await lock.finish("succeeded");
    const res = await answer;
    expect(res.isError).toBe(true);
    expect(service(res)).toMatchObject({ status: "replay", code: "REPLAY", protected_action_id: p.actionId });
    expect(up.calls.refund ?? 0).toBe(before);
  });
});
