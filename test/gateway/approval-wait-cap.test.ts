/**
 * SPEC 4.2, 8.4: an approval wait is 0 to 60 seconds; a larger `wait_seconds` (/v1/authorize) or
 * `service/wait-seconds` (/mcp) is lowered to 60. Asserted without waiting a minute: the Gateway
 * runs in this process, so the test watches (without replacing) the notification hub every held
 * call waits on, reads the time the call was given, and ends the wait with the person's decision.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi, type MockInstance } from "vitest";
import { decideApproval } from "../../core/src/approvals/index.js";
import { NotificationHub } from "../../core/src/store/index.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import {
  createAuthorizationWorld,
  createMcpTool,
  signDecision,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { echoTool, startUpstream, type Upstream } from "../fixtures/upstream-tools.js";
import { mcpAgent, startTestGateway, type TestGateway } from "./harness.js";

let db: TestDatabase;
let gw: TestGateway;
let world: AuthorizationWorld;
let up: Upstream;
let mcpTool: string;
let waits: MockInstance<NotificationHub["wait"]>;

beforeAll(async () => {
  db = await createTestDatabase();
  gw = await startTestGateway(db);
  world = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
  up = await startUpstream({ tools: { refund: echoTool } });
  mcpTool = (
    await createMcpTool(db.pool, world.organizationId, {
      url: up.url,
      upstreamName: "refund",
      amountMapping: { amount_path: "amount", currency: "EUR" },
    })
  ).name;
});
beforeAll(() => {
  waits = vi.spyOn(NotificationHub.prototype, "wait");
});
afterEach(() => waits.mockClear());
afterAll(async () => {
  waits?.mockRestore();
  await gw?.close();
  await up?.close();
  await db?.drop();
});

/** The time (ms) the Gateway gave the first wait on the action's decision, once the call is held. */
async function heldFor(): Promise<{ actionId: string; ms: number }> {
  for (;;) {
    const first = waits.mock.calls[0];
    if (first) return { actionId: first[0], ms: first[1] };
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The person approves the held call: the wait ends at once. */
async function approveHeld(actionId: string) {
  const { rows } = await db.pool.query("select approval_request_id from protected_actions where id = $1", [
    actionId,
  ]);
  const approvalRequestId = rows[0].approval_request_id as string;
  await decideApproval(db.pool, {
    organizationId: world.organizationId,
    approvalRequestId,
    userId: world.approver.userId,
    object: await signDecision(db.pool, approvalRequestId, world.approver.signer, "APPROVAL"),
    identity: gw.gateway.identity,
  });
}

let n = 0;
const held = () => ({ order: `wait-${++n}`, amount: 500 });

describe("POST /v1/authorize wait_seconds", () => {
  it.each([
    [3600, 60_000],
    [61, 60_000],
    [5, 5_000],
  ])(
    "asked %i s: held at most %i ms, and answered authorized once the person approves",
    async (asked, cap) => {
      const answer = gw.authorize(world.key, { tool: world.tool, arguments: held(), wait_seconds: asked });
      const { actionId, ms } = await heldFor();
      expect(ms).toBeLessThanOrEqual(cap);
      // What the call was given reflects what it asked for (not a fixed value).
      expect(ms).toBeGreaterThan(cap / 2);
      await approveHeld(actionId);
      const res = await answer;
      expect(res.body).toMatchObject({ status: "authorized", protected_action_id: actionId });
    },
  );
});

describe("tools/call service/wait-seconds", () => {
  it.each([
    [3600, 60_000],
    [61, 60_000],
    [5, 5_000],
  ])("asked %i s: held at most %i ms, and run once the person approves", async (asked, cap) => {
    const agent = await mcpAgent(gw.gateway.url, world.key);
    const answer = agent.callTool(
      { name: mcpTool, arguments: held(), _meta: { "service/wait-seconds": asked } },
      undefined,
      { timeout: 120_000 },
    ) as Promise<CallToolResult>;
    const { actionId, ms } = await heldFor();
    expect(ms).toBeLessThanOrEqual(cap);
    expect(ms).toBeGreaterThan(cap / 2);
    await approveHeld(actionId);
    const res = await answer;
    expect(res.isError).toBeFalsy();
    expect((res._meta as { service: { protected_action_id: string } }).service.protected_action_id).toBe(
      actionId,
    );
    await agent.close();
  });
});
