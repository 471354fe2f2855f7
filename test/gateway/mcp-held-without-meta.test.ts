/**
 * Approvals for agents that send no `_meta` (docs/gateway.md, "Approvals
 * without _meta"): LLM-driven clients (langchain-mcp-adapters, a model) cannot
 * set `service/idempotency-key`, so a held call is resumed by repeating the
 * identical call (same agent, tool and arguments) while it is open, as SPEC
 * 7.3 says of APPROVAL_PENDING. The official SDK client as the agent, with no
 * `_meta` on any call.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { decideApproval } from "../../core/src/approvals/index.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import {
  createAuthorizationWorld,
  createMcpTool,
  refundMapping,
  signDecision,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { echoTool, startUpstream, type Upstream } from "../fixtures/upstream-tools.js";
import { mcpAgent, recorded, startTestGateway, type TestGateway } from "./harness.js";
import type { JsonBody } from "../fixtures/json.js";

let db: TestDatabase;
let gw: TestGateway;
let world: AuthorizationWorld;
let other: AuthorizationWorld;
let up: Upstream;
let agent: Client;
let tool: string;

beforeAll(async () => {
  db = await createTestDatabase();
  gw = await startTestGateway(db);
  world = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
  other = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
  up = await startUpstream({ tools: { refund: echoTool } });
  tool = (
    await createMcpTool(db.pool, world.organizationId, {
      url: up.url,
      upstreamName: "refund",
      amountMapping: refundMapping,
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

const service = (r: CallToolResult) => (r.structuredContent as { service: Record<string, JsonBody> }).service;
// No `_meta` at all: what an LLM-driven client sends.
const call = (c: Client, name: string, args: Record<string, unknown>) =>
  c.callTool({ name, arguments: args }) as Promise<CallToolResult>;

async function approve(w: AuthorizationWorld, approvalRequestId: string) {
  const object = await signDecision(db.pool, approvalRequestId, w.approver.signer, "APPROVAL");
  await decideApproval(db.pool, {
    organizationId: w.organizationId,
    approvalRequestId,
    userId: w.approver.userId,
    object,
    identity: gw.gateway.identity,
  });
}

it("call, held; the same call again: the same approval request; approved; the same call again runs it, exactly once; after that the identical call is a new decision", async () => {
  const args = { order: "A-1001", amount: 500 };
  const first = await call(agent, tool, args);
  expect(first.isError).toBe(true);
  const held = service(first);
  expect(held).toMatchObject({ status: "approval_pending", code: "APPROVAL_PENDING" });
  // The refusal tells the agent what it can do without _meta.
  expect(held.detail).toContain("repeat the identical call");
  const afterFirst = await recorded(db.pool, world.organizationId);

  // The model retries: the same action and approval request, nothing new recorded.
  const again = service(await call(agent, tool, args));
  expect(again).toMatchObject({
    code: "APPROVAL_PENDING",
    protected_action_id: held.protected_action_id,
    approval_request_id: held.approval_request_id,
  });
  expect(await recorded(db.pool, world.organizationId)).toEqual(afterFirst);

  // A different call (other arguments) is not that one: its own approval request.
  const different = service(await call(agent, tool, { order: "A-1002", amount: 500 }));
  expect(different.code).toBe("APPROVAL_PENDING");
  expect(different.approval_request_id).not.toBe(held.approval_request_id);

  await approve(world, held.approval_request_id as string);
  const before = up.calls.refund ?? 0;
  const ran = await call(agent, tool, args);
  expect(ran.isError).toBeFalsy();
  expect(ran.structuredContent).toEqual({ echoed: args });
  expect((ran._meta as { service: Record<string, JsonBody> }).service.protected_action_id).toBe(
    held.protected_action_id,
  );
  expect(up.calls.refund).toBe(before + 1);
  const { rows } = await db.pool.query(
    "select pa.status, r.outcome from protected_actions pa join receipts r on r.id = pa.receipt_id where pa.id = $1",
    [held.protected_action_id],
  );
  expect(rows[0]).toEqual({ status: "succeeded", outcome: "succeeded" });

  // It ran: the identical call now is a new decision (SPEC 3.2), held again, and the first is not run again.
  const next = service(await call(agent, tool, args));
  expect(next.code).toBe("APPROVAL_PENDING");
  expect(next.protected_action_id).not.toBe(held.protected_action_id);
  expect(next.approval_request_id).not.toBe(held.approval_request_id);
  expect(up.calls.refund).toBe(before + 1);
});

it("a call with an idempotency key is not resumed by the keyless identical call, nor is one agent's by another's", async () => {
  const args = { order: "B-1", amount: 700 };
  const keyed = service(
    (await agent.callTool({
      name: tool,
      arguments: args,
      _meta: { "service/idempotency-key": "b-1" },
    })) as CallToolResult,
  );
  expect(keyed.code).toBe("APPROVAL_PENDING");
  const keyless = service(await call(agent, tool, args));
  expect(keyless.code).toBe("APPROVAL_PENDING");
  expect(keyless.protected_action_id).not.toBe(keyed.protected_action_id);

  // Another organization's agent with a tool of the same name and the same arguments: its own decision.
  await createMcpTool(db.pool, other.organizationId, {
    url: up.url,
    upstreamName: "refund",
    name: tool,
    amountMapping: refundMapping,
  });
  const stranger = await mcpAgent(gw.gateway.url, other.key);
  try {
    const theirs = service(await call(stranger, tool, args));
    expect(theirs.code).toBe("APPROVAL_PENDING");
    expect(theirs.protected_action_id).not.toBe(keyless.protected_action_id);
    expect(service(await call(stranger, tool, args)).protected_action_id).toBe(theirs.protected_action_id);
  } finally {
    await stranger.close();
  }
});
