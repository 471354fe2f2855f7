/**
 * What an upstream does during a call besides answering (docs/gateway.md,
 * "Progress" and "Requests from the upstream during a call"), with the
 * official SDK client as the agent and an SDK McpServer upstream that keeps
 * sessions and answers on SSE streams: its progress reaches the agent under
 * the agent's own token; its requests for sampling or elicitation are refused
 * to it explicitly, whether or not the agent could have answered them, and
 * the call ends failed / UPSTREAM_INPUT_REQUIRED with a failed receipt, never
 * succeeded.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  type CallToolResult,
  type ClientCapabilities,
  type Progress,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyBundle } from "../../protocol/src/evidence/index.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import {
  createAuthorizationWorld,
  createMcpTool,
  refundMapping,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { startInteractiveUpstream, type InteractiveUpstream } from "../fixtures/interactive-upstream.js";
import { startTestGateway, type TestGateway } from "./harness.js";
import type { JsonBody } from "../fixtures/json.js";

let db: TestDatabase;
let gw: TestGateway;
/** A Gateway without the direct tools/call path: every call goes through the SDK's server and transport. */
let viaSdk: TestGateway;
let world: AuthorizationWorld;
let up: InteractiveUpstream;
const tools: Record<string, string> = {};

beforeAll(async () => {
  db = await createTestDatabase();
  gw = await startTestGateway(db);
  viaSdk = await startTestGateway(db, {
    keyHashSecret: gw.keyHashSecret,
    signingKey: gw.signingKey,
    directToolsCall: false,
  });
  world = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
  up = await startInteractiveUpstream();
  for (const name of ["report", "summarize", "confirm"])
    tools[name] = (
      await createMcpTool(db.pool, world.organizationId, {
        url: up.url,
        upstreamName: name,
        amountMapping: refundMapping,
      })
    ).name;
});
afterAll(async () => {
  await gw?.close();
  await viaSdk?.close();
  await up?.close();
  await db?.drop();
});

/** An agent on the official SDK client, declaring these capabilities (and answering what they cover). */
async function agent(capabilities: ClientCapabilities = {}, gateway = gw) {
  const client = new Client({ name: "relay-agent", version: "1.0.0" }, { capabilities });
  const answered = { sampling: 0, elicitation: 0 };
  if (capabilities.sampling)
    client.setRequestHandler(CreateMessageRequestSchema, async () => {
      answered.sampling++;
      return { role: "assistant", content: { type: "text", text: "a summary" }, model: "test-model" };
    });
  if (capabilities.elicitation)
    client.setRequestHandler(ElicitRequestSchema, async () => {
      answered.elicitation++;
      return { action: "accept", content: { ok: true } };
    });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gateway.gateway.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${world.key}` } },
    }),
  );
  return { client, answered };
}

const service = (r: CallToolResult) => (r.structuredContent as { service: Record<string, JsonBody> }).service;
const metaOf = (r: CallToolResult) => (r._meta as { service: Record<string, JsonBody> }).service;

async function recordedOutcome(actionId: string) {
  const { rows } = await db.pool.query(
    `select pa.status, pa.error_code, r.outcome, r.bundle
       from protected_actions pa join receipts r on r.id = pa.receipt_id where pa.id = $1`,
    [actionId],
  );
  const bundle = JSON.parse(rows[0].bundle.toString("utf8"));
  const result = bundle.objects.find((o: { body: { type: string } }) => o.body.type === "RESULT");
  const verification = verifyBundle(bundle, {
    trust: { issuers: [gw.gateway.identity.signer.kid], principals: [world.principal.kid] },
  });
  return {
    status: rows[0].status,
    error_code: rows[0].error_code,
    outcome: rows[0].outcome,
    result: result.body.payload,
    valid: verification.valid,
  };
}

describe("progress", () => {
  it("reaches the agent while the call runs, under the agent's own token, and the call succeeds", async () => {
    const { client } = await agent();
    const seen: Progress[] = [];
    const res = (await client.callTool(
      { name: tools.report!, arguments: { topic: "q3", amount: 5 } },
      undefined,
      { onprogress: (p) => seen.push(p) },
    )) as CallToolResult;
    expect(res.isError).toBeFalsy();
    expect(res.content).toEqual([{ type: "text", text: "report on q3" }]);
    expect(seen).toEqual(
      [1, 2, 3].map((step) => ({ progress: step, total: 3, message: `step ${step} of q3` })),
    );
    // The upstream was asked for progress (with the Gateway's token, not one the agent chose).
    expect(up.progressTokens.at(-1)).toBeDefined();
    expect((await recordedOutcome(metaOf(res).protected_action_id as string)).outcome).toBe("succeeded");
    await client.close();
  });

  it("reaches the agent through the SDK's server and transport too (no direct path)", async () => {
    const { client } = await agent({}, viaSdk);
    const seen: Progress[] = [];
    const res = (await client.callTool(
      { name: tools.report!, arguments: { topic: "q5", amount: 5 } },
      undefined,
      { onprogress: (p) => seen.push(p) },
    )) as CallToolResult;
    expect(res.isError).toBeFalsy();
    expect(seen.map((p) => p.message)).toEqual(["step 1 of q5", "step 2 of q5", "step 3 of q5"]);
    await client.close();
  });

  it("is not asked of the upstream when the agent did not ask for it", async () => {
    const { client } = await agent();
    const res = (await client.callTool({
      name: tools.report!,
      arguments: { topic: "q4", amount: 5 },
    })) as CallToolResult;
    expect(res.isError).toBeFalsy();
    expect(up.progressTokens.at(-1)).toBeUndefined();
    await client.close();
  });
});

describe("requests from the upstream during a call", () => {
  const cases = [
    { tool: "summarize", method: "sampling/createMessage", capability: { sampling: {} } },
    { tool: "confirm", method: "elicitation/create", capability: { elicitation: {} } },
  ] as const;

  for (const c of cases)
    for (const supports of [false, true])
      it(`${c.method}: refused to the upstream, the call failed / UPSTREAM_INPUT_REQUIRED with a failed receipt (agent ${supports ? "declaring" : "without"} the capability)`, async () => {
        const { client, answered } = await agent(supports ? c.capability : {});
        const before = up.calls[c.tool] ?? 0;
        const asked = up.asked.length;
        const res = (await client.callTool({
          name: tools[c.tool]!,
          arguments: { text: "x", question: "x", amount: 5 },
        })) as CallToolResult;
        // The tool ran once and was refused explicitly: a JSON-RPC error naming the Gateway's reason.
        expect(up.calls[c.tool]).toBe(before + 1);
        expect(up.asked.slice(asked)).toEqual([
          {
            method: c.method,
            error: { code: -1, message: expect.stringContaining(`does not relay ${c.method}`) },
          },
        ]);
        // Its degraded answer is not passed off as the call's: the agent gets the refusal.
        expect(res.isError).toBe(true);
        expect(service(res)).toMatchObject({ status: "upstream_error", code: "UPSTREAM_INPUT_REQUIRED" });
        expect(JSON.stringify(res.content)).not.toContain("answered without it");
        expect(answered).toEqual({ sampling: 0, elicitation: 0 });
        // The receipt says so: RESULT failed with the code, verified.
        const m = metaOf(res);
        expect(m.receipt_id).toMatch(/^[0-9a-f-]{36}$/);
        expect(await recordedOutcome(m.protected_action_id as string)).toMatchObject({
          status: "failed",
          error_code: "UPSTREAM_INPUT_REQUIRED",
          outcome: "failed",
          result: { status: "failed", error_code: "UPSTREAM_INPUT_REQUIRED" },
          valid: true,
        });
        await client.close();
      });
});
