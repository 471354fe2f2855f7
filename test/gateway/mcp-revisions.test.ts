/**
 * /mcp's protocol revisions and transport rules (docs/gateway.md, "Protocol
 * revisions", "Transport"): a client pinned to MCP 2026-07-28 lists and calls
 * beside a 2025 one; the revision's header checks refuse a request whose
 * headers disagree with its body (-32020) or an unsupported revision (-32022)
 * and record nothing; a browser Origin that may not call is 403 in both eras
 * and records nothing; every 401 names the Bearer scheme (and, for a
 * 2026-07-28 request, its id).
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import {
  createAuthorizationWorld,
  createMcpTool,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { echoTool, startUpstream, type Upstream } from "../fixtures/upstream-tools.js";
import { mcpAgent, recorded, startTestGateway, type TestGateway } from "./harness.js";

const MODERN = "2026-07-28";
const ALLOWED_PAGE = "https://agents.example.com";

let db: TestDatabase;
let gw: TestGateway;
let world: AuthorizationWorld;
let up: Upstream;
let tool: string;
let modern: ClientV2;
let legacy: Client;

beforeAll(async () => {
  db = await createTestDatabase();
  gw = await startTestGateway(db, { mcpAllowedOrigins: new Set([ALLOWED_PAGE]) });
  world = await createAuthorizationWorld(db.pool, gw.keyHashSecret, {
    document: { revision: 1, default_effect: "allow", rules: [] },
  });
  up = await startUpstream({ tools: { echo: echoTool } });
  tool = (await createMcpTool(db.pool, world.organizationId, { url: up.url, upstreamName: "echo" })).name;
  modern = new ClientV2(
    { name: "pinned", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: MODERN } } },
  );
  await modern.connect(
    new TransportV2(new URL(`${gw.gateway.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${world.key}` } },
    }),
  );
  legacy = await mcpAgent(gw.gateway.url, world.key);
});
afterAll(async () => {
  await modern?.close();
  await legacy?.close();
  await gw?.close();
  await up?.close();
  await db?.drop();
});

/** A raw POST to /mcp with the agent's key unless told otherwise. */
async function post(body: unknown, headers: Record<string, string>, key: string | null = world.key) {
  const res = await fetch(`${gw.gateway.url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

const envelope = (version = MODERN) => ({
  "io.modelcontextprotocol/protocolVersion": version,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1.0.0" },
});

/** A 2026-07-28 tools/call of the echo tool, with the headers the revision wants for it. */
const modernCall = (name: string, id = 1) => ({
  body: {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: { n: id }, _meta: envelope() },
  },
  headers: { "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": name },
});

const legacyInitialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

describe("MCP 2026-07-28 beside the 2025 revisions", () => {
  it("a client pinned to 2026-07-28 lists the tools and runs an allowed call with its receipt", async () => {
    const { tools } = await modern.listTools();
    expect(tools.map((t) => t.name)).toContain(tool);
    const before = up.calls.echo ?? 0;
    const result = await modern.callTool({ name: tool, arguments: { amount: 1 } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ echoed: { amount: 1 } });
    expect((result._meta as { service?: { receipt_id?: unknown } }).service?.receipt_id).toEqual(
      expect.any(String),
    );
    expect(up.calls.echo).toBe(before + 1);
  });

  it("a 2025-11-25 client on the same endpoint still gets 2025-11-25", async () => {
    const r = await post(legacyInitialize, {});
    expect(r.status).toBe(200);
    expect(r.body.result.protocolVersion).toBe("2025-11-25");
    const result = await legacy.callTool({ name: tool, arguments: { amount: 2 } });
    expect(result.isError).toBeFalsy();
  });

  it("server/discover answers the revision and the tools capability", async () => {
    const r = await post(
      { jsonrpc: "2.0", id: 7, method: "server/discover", params: { _meta: envelope() } },
      { "mcp-protocol-version": MODERN, "mcp-method": "server/discover" },
    );
    expect(r.status).toBe(200);
    expect(r.body.result.supportedVersions).toContain(MODERN);
    expect(r.body.result.capabilities.tools).toBeDefined();
  });

  it("Mcp-Name disagreeing with the body is 400 -32020, and nothing is decided or run", async () => {
    const before = await recorded(db.pool, world.organizationId);
    const calls = up.calls.echo ?? 0;
    const call = modernCall(tool);
    const r = await post(call.body, { ...call.headers, "mcp-name": "some_other_tool" });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe(-32020);
    expect(r.body.id).toBe(1);
    // Nor does a missing Mcp-Method get through.
    const { "mcp-method": _omitted, ...noMethod } = call.headers;
    const r2 = await post(call.body, noMethod);
    expect(r2.status).toBe(400);
    expect(r2.body.error.code).toBe(-32020);
    expect(await recorded(db.pool, world.organizationId)).toEqual(before);
    expect(up.calls.echo ?? 0).toBe(calls);
    // The same call with agreeing headers runs: the refusal was the headers', not the call's.
    const ok = await post(call.body, call.headers);
    expect(ok.status).toBe(200);
    expect(ok.body.result.isError).toBeFalsy();
    expect(up.calls.echo).toBe(calls + 1);
  });

  it("an unsupported revision in the envelope is 400 -32022 naming the supported ones", async () => {
    const before = await recorded(db.pool, world.organizationId);
    const r = await post(
      {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: tool, arguments: {}, _meta: envelope("2099-01-01") },
      },
      { "mcp-protocol-version": "2099-01-01", "mcp-method": "tools/call", "mcp-name": tool },
    );
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe(-32022);
    expect(r.body.error.data.supported).toContain(MODERN);
    expect(await recorded(db.pool, world.organizationId)).toEqual(before);
  });
});

describe("transport rules", () => {
  it("a browser Origin that may not call is 403 in both eras, and nothing is recorded", async () => {
    const before = await recorded(db.pool, world.organizationId);
    const calls = up.calls.echo ?? 0;
    const call = modernCall(tool, 11);
    for (const origin of ["http://evil.example.com", "null", "https://agents.example.com.evil.example"]) {
      const m = await post(call.body, { ...call.headers, origin });
      expect(m.status).toBe(403);
      expect(m.body.error.code).toBe(-32600);
      const l = await post(
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: tool, arguments: {} } },
        { origin },
      );
      expect(l.status).toBe(403);
    }
    expect(await recorded(db.pool, world.organizationId)).toEqual(before);
    expect(up.calls.echo ?? 0).toBe(calls);
  });

  it("a loopback page, a configured origin and no Origin at all may call", async () => {
    for (const origin of ["http://localhost:5173", "http://127.0.0.1:8080", ALLOWED_PAGE]) {
      const r = await post(legacyInitialize, { origin });
      expect(r.status).toBe(200);
      const call = modernCall(tool, 20);
      const m = await post(call.body, { ...call.headers, origin });
      expect(m.status).toBe(200);
    }
    expect((await post(legacyInitialize, {})).status).toBe(200);
  });

  it("every 401 names the Bearer scheme, in both eras", async () => {
    const call = modernCall(tool, 30);
    for (const key of [null, "cs_live_not_a_key"]) {
      const m = await post(call.body, call.headers, key);
      expect(m.status).toBe(401);
      expect(m.body.error.code).toBe(-32001);
      // 2026-07-28's schema has no error response with id null: the request's own id.
      expect(m.body.id).toBe(30);
      expect(m.headers.get("www-authenticate")).toMatch(/^Bearer /);
      const l = await post(legacyInitialize, {}, key);
      expect(l.status).toBe(401);
      expect(l.body.id).toBeNull();
      expect(l.headers.get("www-authenticate")).toMatch(/^Bearer /);
    }
  });
});
