/**
 * MCP clients nobody here wrote, as their authors ship them, against a real
 * Gateway (issue 40, "Done when"): the TypeScript SDK v1
 * (`@modelcontextprotocol/sdk`) and `@modelcontextprotocol/client` v2 in its
 * legacy mode, its auto mode (a `server/discover` probe first) and pinned to
 * 2026-07-28. Each lists the tools (the upstream's annotations as the server
 * declared them, its output schema as the first branch of the listed
 * `anyOf`, the refusal's structuredContent the second) and calls one allowed
 * call (run, its structured content validated by the client against the
 * output schema, with a receipt), one denied and one held call that a person
 * then approves and that runs exactly once; the v1 client gets the refusals
 * only because the listed schema admits them (it validates them too,
 * typescript-sdk#1943). The Python `mcp` client does the same in
 * clients/python/tests/test_third_party_mcp.py.
 */
import { randomBytes } from "node:crypto";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
  type VersionNegotiationMode,
} from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import { startCloudApi, type CloudApi } from "../fixtures/cloud-api.js";
import { createTestCa, type TestCa } from "../fixtures/https-receiver.js";
import { refundAnnotations } from "../fixtures/interactive-upstream.js";
import { recorded, startTestGateway, type TestGateway } from "../gateway/harness.js";
import type { JsonBody } from "../fixtures/json.js";
import { thirdPartyWorld, type ThirdPartyWorld } from "./third-party-world.js";

type Json = Record<string, JsonBody>;
interface ToolResult {
  content?: unknown[];
  structuredContent?: Json;
  isError?: boolean;
  _meta?: Json;
}

/** What the test needs of a client: both SDKs' own listTools and callTool. */
interface Agent {
  listTools(): Promise<{ tools: Json[] }>;
  callTool(name: string, args: Json, meta?: Json): Promise<ToolResult>;
  close(): Promise<void>;
}

const headers = (key: string) => ({ requestInit: { headers: { authorization: `Bearer ${key}` } } });

async function sdkV1(url: string, key: string): Promise<Agent> {
  const client = new ClientV1({ name: "third-party-v1", version: "1.0.0" });
  await client.connect(new TransportV1(new URL(url), headers(key)));
  return {
    listTools: async () => (await client.listTools()) as unknown as { tools: Json[] },
    callTool: async (name, args, meta) =>
      (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as ToolResult,
    close: () => client.close(),
  };
}

function clientV2(mode: VersionNegotiationMode) {
  return async (url: string, key: string): Promise<Agent> => {
    const client = new ClientV2(
      { name: "third-party-v2", version: "2.4.0" },
      { versionNegotiation: { mode } },
    );
    await client.connect(new TransportV2(new URL(url), headers(key)));
    return {
      listTools: async () => (await client.listTools()) as unknown as { tools: Json[] },
      callTool: async (name, args, meta) =>
        (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as ToolResult,
      close: () => client.close(),
    };
  };
}

const clients: [string, (url: string, key: string) => Promise<Agent>][] = [
  ["TypeScript SDK v1 (@modelcontextprotocol/sdk)", sdkV1],
  ["@modelcontextprotocol/client v2, legacy mode", clientV2("legacy")],
  ["@modelcontextprotocol/client v2, auto mode", clientV2("auto")],
  ["@modelcontextprotocol/client v2, pinned to 2026-07-28", clientV2({ pin: "2026-07-28" })],
];

let db: TestDatabase;
let api: CloudApi;
let gw: TestGateway;
let ca: TestCa;

beforeAll(async () => {
  db = await createTestDatabase();
  ca = createTestCa();
  api = await startCloudApi(db, { extra: { mcp: { allowLoopbackUrls: true, ca: [ca.caPem] } } });
  gw = await startTestGateway(db, { upstreamCa: [ca.caPem] });
});
afterAll(async () => {
  await gw?.close();
  await api?.close();
  await db?.drop();
  ca?.dispose();
});

const service = (r: ToolResult) => (r.structuredContent as { service: Json }).service;
const metaOf = (r: ToolResult) => (r._meta as { service: Json }).service;

for (const [name, connect] of clients)
  describe(name, () => {
    let tp: ThirdPartyWorld;
    let agent: Agent;
    beforeAll(async () => {
      tp = await thirdPartyWorld(db.pool, api, gw, ca);
      agent = await connect(`${gw.gateway.url}/mcp`, tp.world.key);
    });
    afterAll(async () => {
      await agent?.close();
      await tp?.close();
    });

    it("lists the tools with the annotations and output schema their server declared", async () => {
      const { tools } = await agent.listTools();
      expect(tools.map((t) => t.name)).toEqual([tp.tool]);
      expect(tools[0]).toMatchObject({
        name: tp.tool,
        title: "Refund",
        annotations: refundAnnotations,
      });
      // Listed as {type: "object", anyOf: [declared, refusal]} (docs/gateway.md, tool metadata): the
      // first branch is what the server declared, as its discovery recorded it; the second admits a
      // refusal's structuredContent, which the v1 client checks against it too.
      const listed = tools[0]!.outputSchema as { type: string; anyOf: Json[] };
      expect(listed.type).toBe("object");
      const { rows } = await db.pool.query(
        "select declaration->'outputSchema' as declared from tools where organization_id = $1 and exposed_name = $2",
        [tp.world.organizationId, tp.tool],
      );
      expect(listed.anyOf[0]).toEqual(rows[0].declared);
      expect(listed.anyOf[0]).toMatchObject({
        type: "object",
        properties: {
          refunded: { type: "boolean" },
          order: { type: "string" },
          amount: { type: "number" },
        },
      });
      expect(listed.anyOf[1]).toMatchObject({
        type: "object",
        required: ["service"],
        properties: { service: { required: ["status", "code", "detail"] } },
      });
    });

    it("an allowed call runs once and answers its structured content with _meta.service and a receipt", async () => {
      const before = tp.upstream.calls.refund ?? 0;
      const res = await agent.callTool(tp.tool, { order: "A-1", amount: 40 });
      expect(res.isError).toBeFalsy();
      expect(res.structuredContent).toEqual({ refunded: true, order: "A-1", amount: 40 });
      expect(tp.upstream.calls.refund).toBe(before + 1);
      const { rows } = await db.pool.query(
        "select pa.status, r.outcome from protected_actions pa join receipts r on r.id = pa.receipt_id where pa.id = $1",
        [metaOf(res).protected_action_id],
      );
      expect(rows[0]).toEqual({ status: "succeeded", outcome: "succeeded" });
      expect(metaOf(res).receipt_object_id).toMatch(/^ko_/);
    });

    it("a denied call is a refusal result, and the upstream is not called", async () => {
      const before = tp.upstream.calls.refund ?? 0;
      const res = await agent.callTool(tp.tool, { order: "A-2", amount: 20000 });
      expect(res.isError).toBe(true);
      expect(service(res)).toMatchObject({ status: "denied", code: "POLICY_DENIED" });
      expect(tp.upstream.calls.refund ?? 0).toBe(before);
    });

    it("a held call, approved by a person, runs exactly once when repeated", async () => {
      const meta = { "service/idempotency-key": `held-${randomBytes(4).toString("hex")}` };
      const args = { order: "A-3", amount: 500 };
      const before = tp.upstream.calls.refund ?? 0;
      const held = service(await agent.callTool(tp.tool, args, meta));
      expect(held).toMatchObject({ status: "approval_pending", code: "APPROVAL_PENDING" });
      const pending = await recorded(db.pool, tp.world.organizationId);
      expect(service(await agent.callTool(tp.tool, args, meta)).approval_request_id).toBe(
        held.approval_request_id,
      );
      expect(await recorded(db.pool, tp.world.organizationId)).toEqual(pending);

      await tp.approve(held.approval_request_id as string);
      const ran = await agent.callTool(tp.tool, args, meta);
      expect(ran.isError).toBeFalsy();
      expect(ran.structuredContent).toEqual({ refunded: true, order: "A-3", amount: 500 });
      expect(metaOf(ran).protected_action_id).toBe(held.protected_action_id);
      // Asked again, the stored outcome: not run a second time.
      const again = await agent.callTool(tp.tool, args, meta);
      expect(again.structuredContent).toEqual(ran.structuredContent);
      expect(tp.upstream.calls.refund).toBe(before + 1);
    });

    it("a held call without _meta (as an LLM-driven client sends it) is resumed by the identical call and runs once", async () => {
      const args = { order: `A-4-${randomBytes(3).toString("hex")}`, amount: 600 };
      const before = tp.upstream.calls.refund ?? 0;
      const held = service(await agent.callTool(tp.tool, args));
      expect(held).toMatchObject({ status: "approval_pending", code: "APPROVAL_PENDING" });
      const again = service(await agent.callTool(tp.tool, args));
      expect(again.approval_request_id).toBe(held.approval_request_id);
      await tp.approve(held.approval_request_id as string);
      const ran = await agent.callTool(tp.tool, args);
      expect(ran.isError).toBeFalsy();
      expect(metaOf(ran).protected_action_id).toBe(held.protected_action_id);
      expect(tp.upstream.calls.refund).toBe(before + 1);
    });
  });
