/**
 * Issue 40, item 1: an upstream session, and whatever a server keeps for it,
 * is never shared between organizations, nor between agents of one
 * organization. Two organizations register the same public server (no
 * credential); the first has two agents. Each agent's calls run on a session
 * of its own, opened once and reused: state one agent builds up on the server
 * never reaches another.
 */
import { randomBytes } from "node:crypto";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import { createAgent } from "../fixtures/organization.js";
import {
  createAuthorizationWorld,
  createDelegation,
  createGatewayKey,
  createMcpTool,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { startStatefulUpstream, type StatefulUpstream } from "../fixtures/stateful-upstream.js";
import { startEverythingUpstream, type EverythingUpstream } from "../fixtures/everything-upstream.js";
import { mcpAgent, startTestGateway, type TestGateway } from "./harness.js";

/** Every call of these tools is allowed: the test is about where it runs, not whether. */
const allowAll = { revision: 1, default_effect: "allow", rules: [] };

let db: TestDatabase;
let gw: TestGateway;
let orgA: AuthorizationWorld;
let orgB: AuthorizationWorld;
/** Agents: A1 and A2 of organization A, B1 of organization B. */
const agents: Record<"A1" | "A2" | "B1", Client> = {} as never;
let counter: StatefulUpstream;
let everything: EverythingUpstream;
/** The exposed tool names, per organization and upstream. */
const tools = { A: { count: "", toggle: "" }, B: { count: "", toggle: "" } };

/** A second agent of the organization, delegated and under its policy, and its Gateway key. */
async function secondAgent(w: AuthorizationWorld): Promise<string> {
  const agentId = await createAgent(db.pool, w.organizationId, {
    name: `agent-${randomBytes(3).toString("hex")}`,
  });
  await createDelegation(db.pool, w.organizationId, agentId, w.principal, { permissions: ["payments.*"] });
  await db.pool.query("update agents set policy_id = $2 where id = $1", [agentId, w.policyId]);
  return (await createGatewayKey(db.pool, gw.keyHashSecret, w.organizationId, agentId, w.ownerId)).key;
}

beforeAll(async () => {
  db = await createTestDatabase();
  gw = await startTestGateway(db);
  orgA = await createAuthorizationWorld(db.pool, gw.keyHashSecret, { document: allowAll });
  orgB = await createAuthorizationWorld(db.pool, gw.keyHashSecret, { document: allowAll });
  counter = await startStatefulUpstream("count");
  everything = await startEverythingUpstream();
  for (const [org, w] of [
    ["A", orgA],
    ["B", orgB],
  ] as const) {
    // The same public server, registered by each organization on its own, without a credential.
    tools[org].count = (
      await createMcpTool(db.pool, w.organizationId, { url: counter.url, upstreamName: "count" })
    ).name;
    tools[org].toggle = (
      await createMcpTool(db.pool, w.organizationId, {
        url: everything.url,
        upstreamName: "toggle-simulated-logging",
      })
    ).name;
  }
  agents.A1 = await mcpAgent(gw.gateway.url, orgA.key);
  agents.A2 = await mcpAgent(gw.gateway.url, await secondAgent(orgA));
  agents.B1 = await mcpAgent(gw.gateway.url, orgB.key);
});
afterAll(async () => {
  await Promise.all(Object.values(agents).map((a) => a?.close()));
  await gw?.close();
  await counter?.close();
  await everything?.close();
  await db?.drop();
});

const call = async (agent: keyof typeof agents, name: string): Promise<CallToolResult> => {
  const r = (await agents[agent].callTool({
    name,
    arguments: {},
    _meta: { "service/idempotency-key": `iso-${randomBytes(6).toString("hex")}` },
  })) as CallToolResult;
  // Every call ran: the upstream's answer with the Gateway's receipt.
  expect(r.isError ?? false).toBe(false);
  expect((r._meta as { service?: { receipt_id?: string } }).service?.receipt_id).toEqual(expect.any(String));
  return r;
};
const orgOf = (agent: keyof typeof agents) => (agent[0] === "A" ? "A" : "B");

describe("upstream sessions per agent", () => {
  it("each agent's calls run on a session of its own, opened once and reused", async () => {
    const seen: Record<string, { session: string; calls_in_session: number }[]> = { A1: [], A2: [], B1: [] };
    // Interleaved, as agents' calls arrive.
    for (let round = 0; round < 3; round++)
      for (const agent of ["A1", "A2", "B1"] as const) {
        const r = await call(agent, tools[orgOf(agent)].count);
        seen[agent]!.push(r.structuredContent as { session: string; calls_in_session: number });
      }
    for (const agent of ["A1", "A2", "B1"]) {
      // One session per agent, whose own count only this agent's calls moved.
      expect(new Set(seen[agent]!.map((s) => s.session)).size).toBe(1);
      expect(seen[agent]!.map((s) => s.calls_in_session)).toEqual([1, 2, 3]);
    }
    const sessions = ["A1", "A2", "B1"].map((a) => seen[a]![0]!.session);
    expect(new Set(sessions).size).toBe(3);
    expect(counter.initialized).toBe(3);
    expect([...counter.sessionIds].sort()).toEqual([...sessions].sort());
    expect(counter.calls).toBe(9);
  });

  it("server-everything's simulated logging one agent started is never stopped by another's call", async () => {
    const sessionIn = (r: CallToolResult) => {
      const text = (r.content[0] as { text: string }).text;
      const m = /^(Started|Stopped) simulated.* for session ([0-9a-f-]{36})/.exec(text);
      expect(m, text).not.toBeNull();
      return { verb: m![1], session: m![2] };
    };
    const a1 = sessionIn(await call("A1", tools.A.toggle));
    expect(a1.verb).toBe("Started");
    // The other agent of the same organization, and an agent of the other organization, on the same
    // server: each starts logging on a session of its own instead of stopping A1's.
    const a2 = sessionIn(await call("A2", tools.A.toggle));
    const b1 = sessionIn(await call("B1", tools.B.toggle));
    expect(a2.verb).toBe("Started");
    expect(b1.verb).toBe("Started");
    expect(new Set([a1.session, a2.session, b1.session]).size).toBe(3);
    // A1's next call reaches its own session, where its logging is still on.
    expect(sessionIn(await call("A1", tools.A.toggle))).toEqual({ verb: "Stopped", session: a1.session });
    expect(sessionIn(await call("B1", tools.B.toggle))).toEqual({ verb: "Stopped", session: b1.session });
    expect(everything.sessionIds.sort()).toEqual([a1.session, a2.session, b1.session].sort());
  });
});
