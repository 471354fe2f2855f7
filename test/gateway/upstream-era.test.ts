/**
 * Upstreams that speak only MCP 2026-07-28 beside older ones (docs/gateway.md,
 * "Upstream revisions"): the 2025 handshake first, as before; a server that
 * refuses it is asked with one `server/discover` (per organization and
 * server, remembered) and, speaking 2026-07-28, is called in it (stateless,
 * the v2 client); a 2025 server beside it is called as before. The Cloud
 * API's discovery falls back the same way. An `input_required` answer is not
 * fulfilled for the caller: the call is failed, UPSTREAM_INPUT_REQUIRED, with
 * a failed receipt.
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
import { startCloudApi, type CloudApi } from "../fixtures/cloud-api.js";
import { signedInMember } from "../fixtures/policies.js";
import { mcpAgent, startTestGateway, type TestGateway } from "./harness.js";
import { startModernUpstream, type ModernUpstream } from "./modern-upstream.js";

const allow = { revision: 1, default_effect: "allow", rules: [] };

let db: TestDatabase;
let gw: TestGateway;
let api: CloudApi;
let modern: ModernUpstream;
let legacy: Upstream;
let a: { world: AuthorizationWorld; agent: Client; echo: string; confirm: string; old: string };
let b: { world: AuthorizationWorld; agent: Client; echo: string };

beforeAll(async () => {
  db = await createTestDatabase();
  gw = await startTestGateway(db);
  api = await startCloudApi(db, { extra: { mcp: { allowLoopbackUrls: true } } });
  modern = await startModernUpstream();
  legacy = await startUpstream({ tools: { echo: echoTool } });
  const wa = await createAuthorizationWorld(db.pool, gw.keyHashSecret, { document: allow });
  const wb = await createAuthorizationWorld(db.pool, gw.keyHashSecret, { document: allow });
  const tool = async (w: AuthorizationWorld, url: string, upstreamName: string) =>
    (await createMcpTool(db.pool, w.organizationId, { url, upstreamName })).name;
  a = {
    world: wa,
    agent: await mcpAgent(gw.gateway.url, wa.key),
    echo: await tool(wa, modern.url, "echo"),
    confirm: await tool(wa, modern.url, "confirm"),
    old: await tool(wa, legacy.url, "echo"),
  };
  b = { world: wb, agent: await mcpAgent(gw.gateway.url, wb.key), echo: await tool(wb, modern.url, "echo") };
});
afterAll(async () => {
  await a?.agent.close();
  await b?.agent.close();
  await gw?.close();
  await api?.close();
  await modern?.close();
  await legacy?.close();
  await db?.drop();
});

const call = (agent: Client, name: string, args: Record<string, unknown> = {}) =>
  agent.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const service = (r: CallToolResult) =>
  (r.structuredContent as { service?: { status: string; code: string } } | undefined)?.service;
const receiptOf = (r: CallToolResult) =>
  (r._meta as { service?: { receipt_id?: string } }).service?.receipt_id;

describe("upstream revisions", () => {
  it("a 2026-only server is called in 2026-07-28, its revision found once and remembered", async () => {
    const first = await call(a.agent, a.echo, { n: 1 });
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent).toEqual({ echoed: { n: 1 } });
    expect(receiptOf(first)).toEqual(expect.any(String));
    const second = await call(a.agent, a.echo, { n: 2 });
    expect(second.structuredContent).toEqual({ echoed: { n: 2 } });
    expect(modern.calls).toEqual({ "2026-07-28": 2 });
    // The 2025 handshake was refused once, the probe asked once; the second call went straight to 2026-07-28.
    expect(modern.refused).toBe(1);
    expect(modern.discovers).toBe(1);
  });

  it("what one organization found is not read for another: its first call probes again", async () => {
    const before = { discovers: modern.discovers, refused: modern.refused };
    const r = await call(b.agent, b.echo, { n: 3 });
    expect(r.structuredContent).toEqual({ echoed: { n: 3 } });
    expect(modern.discovers).toBe(before.discovers + 1);
    expect(modern.refused).toBe(before.refused + 1);
    await call(b.agent, b.echo, { n: 4 });
    expect(modern.discovers).toBe(before.discovers + 1);
    expect(modern.refused).toBe(before.refused + 1);
  });

  it("a 2025 server keeps the 2025 handshake", async () => {
    const r = await call(a.agent, a.old, { n: 5 });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({ echoed: { n: 5 } });
    expect(legacy.calls.echo).toBe(1);
  });

  it("an input_required answer is not fulfilled for the caller: failed, UPSTREAM_INPUT_REQUIRED, with its receipt", async () => {
    const r = await call(a.agent, a.confirm);
    expect(r.isError).toBe(true);
    expect(service(r)).toMatchObject({ code: "UPSTREAM_INPUT_REQUIRED" });
    const { rows } = await db.pool.query<{ outcome: string }>(
      `select r.outcome from receipts r join protected_actions p on p.id = r.protected_action_id
        where p.organization_id = $1 and p.tool_name = $2`,
      [a.world.organizationId, a.confirm],
    );
    expect(rows.map((x) => x.outcome)).toEqual(["failed"]);
  });

  it("the Cloud API discovers a 2026-only server's tools (the 2025 handshake refused, then 2026-07-28)", async () => {
    const org = a.world.organizationId;
    const { b: admin } = await signedInMember(api, db.pool, org, "admin");
    const server = await admin.post(`/orgs/${org}/mcp-servers`, {
      kind: "mcp",
      name: "modern-only",
      url: modern.url,
    });
    expect(server.status).toBe(201);
    const found = await admin.post(`/orgs/${org}/mcp-servers/${server.body.mcp_server.id}/discover`, {});
    expect(found.status).toBe(200);
    expect((found.body.tools as { name: string }[]).map((t) => t.name).sort()).toEqual(["confirm", "echo"]);
  });
});
