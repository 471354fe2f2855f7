/**
 * A single tools/call is answered without an SDK server per request
 * (gateway/src/mcp/direct-tools-call.ts); everything else goes through the
 * SDK. Two Gateways share one database, one with the direct path and one
 * with every request through the SDK; each request is sent to both, and the
 * answers must be the same: status, headers, and the JSON-RPC body byte for
 * byte once the ids of recorded decisions are masked. The request's span says
 * which path answered it, so the test also proves the direct path was taken
 * exactly where it should be.
 */
import http from "node:http";
import { randomBytes } from "node:crypto";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSeed } from "../../protocol/src/evidence/index.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import {
  createAuthorizationWorld,
  createMcpTool,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { echoTool, startUpstream, type Upstream } from "../fixtures/upstream-tools.js";
import { heldThenLeft, startTestGateway, type TestGateway } from "./harness.js";

const exporter = new InMemorySpanExporter();
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(
  new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
);

let db: TestDatabase;
let direct: TestGateway;
let sdk: TestGateway;
let world: AuthorizationWorld;
let up: Upstream;
let tool: string;

beforeAll(async () => {
  db = await createTestDatabase();
  const keyHashSecret = randomBytes(32);
  const signingKey = generateSeed();
  const credentialKey = randomBytes(32);
  direct = await startTestGateway(db, { keyHashSecret, signingKey, credentialKey });
  sdk = await startTestGateway(db, { keyHashSecret, signingKey, credentialKey, directToolsCall: false });
  world = await createAuthorizationWorld(db.pool, keyHashSecret);
  up = await startUpstream({
    tools: {
      refund: echoTool,
      failing: () => ({ content: [{ type: "text", text: "card declined" }], isError: true }),
    },
  });
  tool = (
    await createMcpTool(db.pool, world.organizationId, {
      url: up.url,
      upstreamName: "refund",
      amountMapping: { amount_path: "amount", currency: "EUR" },
      credential: { key: credentialKey, authorization: "Bearer upstream-secret" },
    })
  ).name;
});
afterAll(async () => {
  await direct?.close();
  await sdk?.close();
  await up?.close();
  await db?.drop();
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  dispatch: unknown;
}

const JSON_AND_SSE = "application/json, text/event-stream";

/** One POST /mcp over plain node:http, so that every header (Host too) is the test's. */
function post(gateway: TestGateway, body: string, headers: Record<string, string>): Promise<Answer> {
  const url = new URL(`${gateway.gateway.url}/mcp`);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        agent: false,
        headers: { "content-length": String(Buffer.byteLength(body)), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            text: Buffer.concat(chunks).toString("utf8"),
            dispatch: undefined,
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** How the request's POST /mcp span says it was answered (the span ends just after the answer is written). */
async function dispatchOfLastRequest(): Promise<unknown> {
  for (let i = 0; i < 100; i++) {
    const span = exporter.getFinishedSpans().find((s) => s.name === "POST /mcp");
    if (span) return span.attributes["countersign.mcp_dispatch"];
    await new Promise((r) => setTimeout(r, 10));
  }
  return "no span";
}

/** The request to each Gateway; a function gives each its own body (a call with its own idempotency key). */
async function both(
  body: unknown | (() => unknown),
  headers: Record<string, string> = {},
): Promise<[Answer, Answer]> {
  const all = {
    "content-type": "application/json",
    accept: JSON_AND_SSE,
    authorization: `Bearer ${world.key}`,
    ...headers,
  };
  const answers: Answer[] = [];
  for (const gateway of [direct, sdk]) {
    exporter.reset();
    const answer = await post(gateway, JSON.stringify(typeof body === "function" ? body() : body), all);
    answer.dispatch = await dispatchOfLastRequest();
    answers.push(answer);
  }
  return answers as [Answer, Answer];
}

/** Ids and times a recorded decision gets afresh each time; everything else must be equal. */
const masked = (text: string) =>
  text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>")
    .replace(/ko_[A-Za-z0-9_-]+/g, "<object id>")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>");

// Headers of the connection and the clock, not of the answer.
const varying = new Set(["date", "x-request-id", "connection", "keep-alive"]);
const headersOf = (a: Answer) =>
  Object.fromEntries(
    Object.entries(a.headers)
      .filter(([name]) => !varying.has(name))
      .map(([name, value]) => [name, name === "content-length" ? "(length)" : value]),
  );

/** `recorded`: the call was recorded on each Gateway, so the answers differ in its ids and times only. */
function expectSameAnswer([viaDirect, viaSdk]: [Answer, Answer], path: "direct" | "sdk", recorded = false) {
  expect(viaSdk.dispatch).toBe("sdk");
  expect(viaDirect.dispatch).toBe(path);
  expect(viaDirect.status).toBe(viaSdk.status);
  expect(headersOf(viaDirect)).toEqual(headersOf(viaSdk));
  for (const a of [viaDirect, viaSdk]) {
    expect(a.headers["x-request-id"]).toBeTruthy();
    if (a.headers["content-length"] !== undefined)
      expect(Number(a.headers["content-length"])).toBe(Buffer.byteLength(a.text));
  }
  if (recorded) {
    expect(viaDirect.text).not.toBe(viaSdk.text);
    expect(masked(viaDirect.text)).toBe(masked(viaSdk.text));
  } else expect(viaDirect.text).toBe(viaSdk.text);
  return viaDirect;
}

let n = 0;
const idempotencyKey = () => `direct-${++n}-${randomBytes(4).toString("hex")}`;
const callOf = (
  params: Record<string, unknown>,
  id: unknown = 7,
  envelope: Record<string, unknown> = {},
): Record<string, unknown> => ({ jsonrpc: "2.0", id, method: "tools/call", params, ...envelope });
const refund = (amount: unknown, meta: Record<string, unknown> = {}) =>
  callOf({ name: tool, arguments: { order: "o-1", amount }, _meta: meta });
const serviceOf = (a: Answer) => JSON.parse(a.text).result.structuredContent.service;

describe("a single tools/call: the direct path answers what the SDK answers", () => {
  it("an allowed call runs once on each Gateway and returns the same result with its receipt ids", async () => {
    const before = up.calls.refund ?? 0;
    const [viaDirect, viaSdk] = await both(() => refund(40, { "service/idempotency-key": idempotencyKey() }));
    // Each Gateway records its own call, so each answer has its own ids: the rest is the same bytes.
    const answer = expectSameAnswer([viaDirect, viaSdk], "direct", true);
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toBe("application/json");
    const body = JSON.parse(answer.text);
    expect(body).toMatchObject({ jsonrpc: "2.0", id: 7 });
    expect(body.result.structuredContent).toEqual({ echoed: { order: "o-1", amount: 40 } });
    expect(body.result._meta.service.receipt_object_id).toMatch(/^ko_/);
    expect(up.calls.refund).toBe(before + 2);
  });

  it("a refused call (denied by the policy, held for approval) and the upstream's error result", async () => {
    const before = up.calls.refund ?? 0;
    const denied = expectSameAnswer(await both(refund(20000)), "direct", true);
    expect(serviceOf(denied)).toMatchObject({ status: "denied", code: "POLICY_DENIED" });
    // Each Gateway's own held call: a keyless repeat of an open held call resumes it (identical-held-store.ts).
    const held = expectSameAnswer(
      await both(() => refund(500, { "service/idempotency-key": randomBytes(8).toString("hex") })),
      "direct",
      true,
    );
    expect(serviceOf(held)).toMatchObject({ code: "APPROVAL_PENDING" });
    expect(up.calls.refund ?? 0).toBe(before);
    const failingTool = (
      await createMcpTool(db.pool, world.organizationId, {
        url: up.url,
        upstreamName: "failing",
        amountMapping: { amount_path: "amount", currency: "EUR" },
      })
    ).name;
    const failed = expectSameAnswer(
      await both(callOf({ name: failingTool, arguments: { amount: 1 } })),
      "direct",
      true,
    );
    expect(serviceOf(failed)).toMatchObject({ code: "UPSTREAM_TOOL_ERROR" });
  });

  it("refusals the tool's handler gives: unknown tool, invalid arguments, invalid _meta, decision-only tool", async () => {
    for (const [request, code] of [
      [callOf({ name: "no_such_tool", arguments: {} }), "UNKNOWN_TOOL"],
      [refund(1.5), "INVALID_ARGUMENTS"],
      [refund(1, { "service/idempotency-key": "" }), "INVALID_META"],
      [callOf({ name: world.tool, arguments: { amount: 1 } }), "DECISION_ONLY_TOOL"],
    ] as const) {
      const answer = expectSameAnswer(await both(request), "direct");
      expect(serviceOf(answer).code).toBe(code);
    }
  });

  it("the forms of a single call the direct path takes: string ids, no arguments, headers as clients send them", async () => {
    const none = callOf({ name: "no_such_tool" });
    for (const [request, headers] of [
      [callOf({ name: "no_such_tool" }, "req-1"), {}],
      [callOf({ name: "no_such_tool" }, 0), {}],
      [none, { accept: "text/event-stream, application/json" }],
      [none, { accept: "application/json;q=0.9, text/event-stream" }],
      [none, { "mcp-protocol-version": "2025-06-18" }],
      [none, { "content-type": "application/json; charset=utf-8" }],
      [none, { host: "LOCALHOST:61234" }],
      [none, { host: "gateway.example" }],
      [callOf({ name: "no_such_tool", _meta: { progressToken: 3 }, extra: true }), {}],
    ] as const) {
      const answer = expectSameAnswer(await both(request, headers), "direct");
      expect(answer.status).toBe(200);
    }
  });
});

describe("a client that leaves while its call waits for a person", () => {
  it("stops the wait on either Gateway: the handler's signal is aborted when the response closes before its answer", async () => {
    for (const gateway of [direct, sdk]) {
      const body = JSON.stringify(
        refund(500, { "service/wait-seconds": 60, "service/idempotency-key": idempotencyKey() }),
      );
      const headers = { accept: JSON_AND_SSE, authorization: `Bearer ${world.key}` };
      expect(await heldThenLeft(gateway, "/mcp", body, headers)).toEqual({ held: 1, left: 0 });
    }
  });
});

describe("everything else goes through the SDK, as before", () => {
  const cases: [string, unknown, Record<string, string>][] = [
    ["params without a name", callOf({ arguments: {} }), {}],
    ["a name that is not a string", callOf({ name: 5 }), {}],
    ["arguments that are not an object", callOf({ name: "no_such_tool", arguments: [1] }), {}],
    ["params missing", { jsonrpc: "2.0", id: 1, method: "tools/call" }, {}],
    ["JSON-RPC 1.0", callOf({ name: "no_such_tool" }, 1, { jsonrpc: "1.0" }), {}],
    ["no jsonrpc member", { id: 1, method: "tools/call", params: { name: "no_such_tool" } }, {}],
    ["a null id", callOf({ name: "no_such_tool" }, null), {}],
    ["a fractional id", callOf({ name: "no_such_tool" }, 1.5), {}],
    ["an id past the safe integers", callOf({ name: "no_such_tool" }, 2 ** 53), {}],
    ["an extra envelope member", callOf({ name: "no_such_tool" }, 1, { result: {} }), {}],
    ["a notification", { jsonrpc: "2.0", method: "tools/call", params: { name: "no_such_tool" } }, {}],
    ["a task-augmented call", callOf({ name: "no_such_tool", task: { ttl: 1000 } }), {}],
    ["a batch of two calls", [callOf({ name: "no_such_tool" }, 1), callOf({ name: "nope" }, 2)], {}],
    ["a batch of one call", [callOf({ name: "no_such_tool" }, 1)], {}],
    ["Accept: application/json only", callOf({ name: "no_such_tool" }), { accept: "application/json" }],
    ["Accept: text/event-stream only", callOf({ name: "no_such_tool" }), { accept: "text/event-stream" }],
    ["Accept: */*", callOf({ name: "no_such_tool" }), { accept: "*/*" }],
    [
      "an unsupported protocol version",
      callOf({ name: "no_such_tool" }),
      { "mcp-protocol-version": "1999-01-01" },
    ],
    ["a Host the adapter cannot use", callOf({ name: "no_such_tool" }), { host: "1.2.3.4.5" }],
    ["a Host the adapter reads otherwise", callOf({ name: "no_such_tool" }), { host: "127.1:60001" }],
    ["initialize", initialize(), {}],
    ["tools/list", { jsonrpc: "2.0", id: 3, method: "tools/list" }, {}],
    ["ping", { jsonrpc: "2.0", id: 4, method: "ping" }, {}],
    ["an unknown method", { jsonrpc: "2.0", id: 5, method: "tools/run", params: {} }, {}],
  ];
  it.each(cases)("%s", async (_what, body, headers) => {
    expectSameAnswer(await both(body, headers), "sdk");
  });

  it("what the SDK answers for them: its JSON-RPC errors, 406, 202 for a notification", async () => {
    const [badParams] = await both(callOf({ name: 5 }));
    expect(JSON.parse(badParams.text).error.code).toBe(-32602);
    const [wrongVersion] = await both(callOf({ name: "x" }, 1, { jsonrpc: "1.0" }));
    expect(wrongVersion.status).toBe(400);
    expect(JSON.parse(wrongVersion.text).error.code).toBe(-32700);
    const [jsonOnly] = await both(callOf({ name: "x" }), { accept: "application/json" });
    expect(jsonOnly.status).toBe(406);
    const [notification] = await both({ jsonrpc: "2.0", method: "notifications/initialized" });
    expect(notification.status).toBe(202);
    expect(notification.text).toBe("");
  });
});

function initialize() {
  return {
    jsonrpc: "2.0",
    id: 2,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  };
}
