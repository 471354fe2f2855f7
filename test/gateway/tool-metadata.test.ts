/**
 * Issue 40, item 3: a tool's metadata reaches agents as its server declared
 * it. A real MCP server declares title, icons, outputSchema, annotations (one
 * hint MCP does not name among them) and execution; an admin makes the tool
 * through the Cloud API (a discovery); tools/list through the Gateway answers
 * those members identical, to the SDK's client and on the wire, the output
 * schema as the first branch of `{type: "object", anyOf: [declared, refusal]}`
 * so that a refusal reaches the SDK v1 client, which checks it against the
 * output schema (docs/gateway.md, "Tool metadata"). When the
 * server later declares other annotations or another output schema, the next
 * discovery records it as a changed binding pin: the tool is
 * reauthorization_required, no longer listed and refused
 * TOOL_REAUTHORIZATION_REQUIRED until an admin authorizes the new binding.
 */
import { randomBytes } from "node:crypto";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import { createAuthorizationWorld, type AuthorizationWorld } from "../fixtures/authorization.js";
import { startCloudApi, type Browser, type CloudApi } from "../fixtures/cloud-api.js";
import { createTestCa, type TestCa } from "../fixtures/https-receiver.js";
import { startMcpServer, type ListedTool, type McpTestServer } from "../fixtures/mcp-server.js";
import { signedInMember } from "../fixtures/policies.js";
import { mcpAgent, startTestGateway, type TestGateway } from "./harness.js";

const declared = {
  title: "Look up an order",
  icons: [{ src: "https://icons.example/lookup.png", mimeType: "image/png", sizes: ["48x48"] }],
  outputSchema: {
    type: "object",
    properties: { order: { type: "string" }, found: { type: "boolean" } },
    required: ["order", "found"],
  },
  annotations: {
    title: "Order lookup",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
    "x-dataClass": "pci",
  },
  execution: { taskSupport: "forbidden" },
};
const members = ["title", "icons", "outputSchema", "annotations", "execution"] as const;
/** A tool of the same server that declares nothing besides its input schema. */
const plain = { name: "ping", description: "answers pong", inputSchema: { type: "object" } };

let db: TestDatabase;
let ca: TestCa;
let api: CloudApi;
let gw: TestGateway;
let up: McpTestServer;
let world: AuthorizationWorld;
let owner: Browser;
let agent: Client;
let serverId: string;
let toolId: string;
/** What the server lists now; a test changes it as a server's new version would. */
let listed: ListedTool;

beforeAll(async () => {
  db = await createTestDatabase();
  ca = createTestCa();
  api = await startCloudApi(db, { extra: { mcp: { allowLoopbackUrls: true, ca: [ca.caPem] } } });
  gw = await startTestGateway(db, { upstreamCa: [ca.caPem] });
  world = await createAuthorizationWorld(db.pool, gw.keyHashSecret, {
    document: { revision: 1, default_effect: "allow", rules: [] },
  });
  owner = (await signedInMember(api, db.pool, world.organizationId, "owner")).b;
  listed = {
    name: "lookup",
    description: "looks an order up",
    inputSchema: { type: "object", properties: { order: { type: "string" } } },
    ...structuredClone(declared),
  };
  up = await startMcpServer(ca, {
    list: () => ({ tools: [listed, plain] }),
    call: (_name, args) => ({
      content: [{ type: "text", text: "found" }],
      structuredContent: { order: String(args.order), found: true },
    }),
  });
  const server = await owner.post(`/orgs/${world.organizationId}/mcp-servers`, {
    kind: "mcp",
    name: `orders-${randomBytes(3).toString("hex")}`,
    url: up.url,
  });
  expect(server.status, JSON.stringify(server.body)).toBe(201);
  serverId = server.body.mcp_server.id;
  // Made and enabled by an admin: the schema and the declaration come from the server (a discovery).
  const tool = await owner.post(`/orgs/${world.organizationId}/tools`, {
    mcp_server_id: serverId,
    exposed_name: "orders_lookup",
    upstream_name: "lookup",
    action: "payments.refund",
    enabled: true,
  });
  expect(tool.status, JSON.stringify(tool.body)).toBe(201);
  toolId = tool.body.tool.id;
  const ping = await owner.post(`/orgs/${world.organizationId}/tools`, {
    mcp_server_id: serverId,
    exposed_name: "orders_ping",
    upstream_name: "ping",
    action: "payments.ping",
    enabled: true,
  });
  expect(ping.status, JSON.stringify(ping.body)).toBe(201);
  agent = await mcpAgent(gw.gateway.url, world.key);
});
afterAll(async () => {
  await agent?.close();
  await gw?.close();
  await api?.close();
  await up?.close();
  await db?.drop();
  ca?.dispose();
});

/** tools/list as it travels: the JSON the Gateway sends, before any client parses it. */
async function listedOnTheWire(): Promise<Record<string, unknown>[]> {
  const res = await fetch(`${gw.gateway.url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${world.key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
  expect(res.status).toBe(200);
  const text = await res.text();
  // A JSON body, or one SSE event carrying it.
  const json = text.startsWith("{") ? text : /^data: (.*)$/m.exec(text)![1]!;
  return (JSON.parse(json) as { result: { tools: Record<string, unknown>[] } }).result.tools;
}

const toolRecord = async () => (await owner.get(`/orgs/${world.organizationId}/tools/${toolId}`)).body.tool;
const discover = () => owner.post(`/orgs/${world.organizationId}/mcp-servers/${serverId}/discover`, {});
const pick = (t: Record<string, unknown>) => Object.fromEntries(members.map((m) => [m, t[m]]));

/**
 * The members tools/list answers for a declaration: each as declared, the
 * output schema widened, its first branch exactly the declared schema.
 */
function expectListed(tool: Record<string, unknown>, declaration: Record<string, unknown>) {
  const { outputSchema, ...others } = pick(tool);
  const { outputSchema: declaredSchema, ...declaredOthers } = declaration;
  expect(others).toEqual(declaredOthers);
  const listedSchema = outputSchema as { type: string; anyOf: Record<string, unknown>[] };
  expect(listedSchema.anyOf[0]).toEqual(declaredSchema);
  expect(listedSchema).toEqual({
    type: "object",
    anyOf: [
      declaredSchema,
      expect.objectContaining({
        required: ["service"],
        properties: { service: expect.objectContaining({ required: ["status", "code", "detail"] }) },
      }),
    ],
  });
}

describe("tool metadata through the Gateway", () => {
  it("tools/list answers title, icons, outputSchema, annotations and execution as the server declared them", async () => {
    const wire = (await listedOnTheWire()).find((t) => t.name === "orders_lookup");
    expect(wire).toBeDefined();
    expectListed(wire!, declared);
    expect(wire!.description).toBe("looks an order up");
    // The SDK's client reads the MCP members (it drops hints MCP does not name, as it would from the server itself).
    const { tools } = await agent.listTools();
    const seen = tools.find((t) => t.name === "orders_lookup")!;
    const { "x-dataClass": _unnamed, ...namedHints } = declared.annotations;
    expectListed(seen, { ...declared, annotations: namedHints });
    // The record shows what was declared, and the pin covers it.
    const record = await toolRecord();
    expect(record.declaration).toEqual(declared);
    expect(record.binding.declaration).toMatch(/^sha256:/);
    expect(record.authorization.state).toBe("authorized");
  });

  it("a tool whose server declared no output schema is listed without one", async () => {
    const wire = (await listedOnTheWire()).find((t) => t.name === "orders_ping");
    expect(wire).toEqual({
      name: "orders_ping",
      description: "answers pong",
      inputSchema: { type: "object" },
    });
    const { tools } = await agent.listTools();
    expect(tools.find((t) => t.name === "orders_ping")).not.toHaveProperty("outputSchema");
  });

  it("a call runs, its structured result checked by the client against the listed output schema", async () => {
    await agent.listTools();
    const r = (await agent.callTool({
      name: "orders_lookup",
      arguments: { order: "A-1" },
      _meta: { "service/idempotency-key": `md-${randomBytes(4).toString("hex")}` },
    })) as CallToolResult;
    expect(r.isError ?? false).toBe(false);
    expect(r.structuredContent).toEqual({ order: "A-1", found: true });
  });

  it("a refusal of the listed tool reaches the SDK's client as the refusal, not as the client's own -32602", async () => {
    await agent.listTools();
    const key = `md-${randomBytes(4).toString("hex")}`;
    const call = (order: string) =>
      agent.callTool({
        name: "orders_lookup",
        arguments: { order },
        _meta: { "service/idempotency-key": key },
      }) as Promise<CallToolResult>;
    expect((await call("A-5")).isError ?? false).toBe(false);
    // The same idempotency key with other arguments: refused by the Gateway, {service} outside the declared schema.
    const refused = await call("A-6");
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({
      service: { status: "invalid_request", code: "IDEMPOTENCY_KEY_REUSED" },
    });
  });

  it("a discovery that finds the same declaration changes nothing", async () => {
    const before = await toolRecord();
    const found = await discover();
    expect(found.status).toBe(200);
    expect(found.body.tools[0]).toMatchObject({ name: "lookup", declaration: declared, tool_id: toolId });
    const after = await toolRecord();
    expect(after.binding.digest).toBe(before.binding.digest);
    expect(after.authorization.state).toBe("authorized");
    expect(after.updated_at).toBe(before.updated_at);
  });

  it("a tool authorized before its declaration was recorded keeps its authorization when a discovery first records one", async () => {
    // orders_ping as a tool made before declarations were kept: no declaration, a pin without one, authorized.
    const pingId = (
      await db.pool.query(
        "select id from tools where organization_id = $1 and exposed_name = 'orders_ping'",
        [world.organizationId],
      )
    ).rows[0].id as string;
    const pingRecord = async () =>
      (await owner.get(`/orgs/${world.organizationId}/tools/${pingId}`)).body.tool;
    expect((await pingRecord()).authorization.state).toBe("authorized");
    // The server's next version declares annotations for ping for the first time.
    const pingDeclared = { annotations: { readOnlyHint: true } };
    const before = plain;
    Object.assign(plain, pingDeclared);
    try {
      expect((await discover()).status).toBe(200);
      const adopted = await pingRecord();
      expect(adopted.declaration).toEqual(pingDeclared);
      expect(adopted.authorization.state).toBe("authorized");
      expect(adopted.binding.declaration).toBeDefined();
      const audit = await db.pool.query(
        "select details from audit_log where target_id = $1 and action = 'tool.updated' order by id desc limit 1",
        [pingId],
      );
      expect(audit.rows[0].details).toEqual({
        fields: ["declaration"],
        binding_changed: true,
        adopted: true,
      });
      const wire = (await listedOnTheWire()).find((t) => t.name === "orders_ping");
      expect(wire?.annotations).toEqual(pingDeclared.annotations);

      // Its next change is a change like any other: an admin reviews it.
      Object.assign(plain, { annotations: { readOnlyHint: false, destructiveHint: true } });
      expect((await discover()).status).toBe(200);
      expect((await pingRecord()).authorization.state).toBe("reauthorization_required");
    } finally {
      delete (before as Record<string, unknown>).annotations;
    }
  });

  for (const change of [
    {
      what: "an annotation",
      apply: (t: ListedTool) => ({
        ...t,
        annotations: { ...declared.annotations, readOnlyHint: false, destructiveHint: true },
      }),
    },
    {
      what: "the output schema",
      apply: (t: ListedTool) => ({
        ...t,
        outputSchema: { ...declared.outputSchema, properties: { order: { type: "string" } }, required: [] },
      }),
    },
  ])
    it(`${change.what} changed at a later discovery is a binding no one authorized until an admin does`, async () => {
      const before = await toolRecord();
      expect(before.authorization.state).toBe("authorized");
      listed = change.apply(listed);
      expect((await discover()).status).toBe(200);
      const after = await toolRecord();
      expect(after.authorization.state).toBe("reauthorization_required");
      expect(after.binding.declaration).not.toBe(before.binding.declaration);
      expect(after.declaration).toEqual(pick(listed));
      const audit = await db.pool.query(
        "select details from audit_log where target_id = $1 and action = 'tool.updated' order by id desc limit 1",
        [toolId],
      );
      expect(audit.rows[0].details).toEqual({ fields: ["declaration"], binding_changed: true });

      // The Gateway neither lists it nor runs it.
      expect((await listedOnTheWire()).map((t) => t.name)).not.toContain("orders_lookup");
      await agent.listTools();
      const refused = (await agent.callTool({
        name: "orders_lookup",
        arguments: { order: "A-2" },
        _meta: { "service/idempotency-key": `md-${randomBytes(4).toString("hex")}` },
      })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toMatchObject({
        service: { code: "TOOL_REAUTHORIZATION_REQUIRED" },
      });

      // An admin reviews and authorizes the new binding: listed again, with what the server declares now.
      const authorized = await owner.post(`/orgs/${world.organizationId}/tools/${toolId}/authorize`, {
        binding_digest: after.binding.digest,
      });
      expect(authorized.status, JSON.stringify(authorized.body)).toBe(200);
      const wire = (await listedOnTheWire()).find((t) => t.name === "orders_lookup");
      expectListed(wire!, pick(listed));
    });
});
