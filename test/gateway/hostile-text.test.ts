/**
 * The text rule at the Gateway's edge, on a real Gateway and real PostgreSQL:
 * lone surrogates (as escapes and as raw UTF-8-encoded surrogates), U+0000,
 * invalid UTF-8 and exact duplicate member names are refused with the spec's
 * code in each protocol and record nothing; and every answer fastify gives
 * before a route runs has the endpoint's own shape.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import { createAuthorizationWorld, type AuthorizationWorld } from "../fixtures/authorization.js";
import { recorded, startTestGateway, type TestGateway } from "./harness.js";
import type { JsonBody } from "../fixtures/json.js";

let db: TestDatabase;
let gw: TestGateway;
let world: AuthorizationWorld;

beforeAll(async () => {
  db = await createTestDatabase();
  gw = await startTestGateway(db);
  world = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
});
afterAll(async () => {
  await gw?.close();
  await db?.drop();
});

/** A raw body: text parts as UTF-8, number arrays as the bytes themselves. */
const raw = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : Buffer.from(p))));
const LONE_HIGH = [0xed, 0xa0, 0x80]; // U+D800 encoded as if it were a character
const LONE_LOW = [0xed, 0xb0, 0x80];

async function post(path: string, body: Buffer | string, headers: Record<string, string> = {}) {
  const res = await fetch(`${gw.gateway.url}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${world.key}`,
      ...headers,
    },
    body,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : null };
}

/** Any method, TRACE included (fetch refuses to send it). */
function send(
  method: string,
  path: string,
): Promise<{ status: number; allow: string | undefined; body: JsonBody }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${gw.gateway.url}${path}`, { method }, (res) => {
      let text = "";
      res.on("data", (d) => (text += d));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, allow: res.headers.allow, body: JSON.parse(text) }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

async function expectNothingRecorded<T>(fn: () => Promise<T>): Promise<T> {
  const before = await recorded(db.pool, world.organizationId);
  const out = await fn();
  expect(await recorded(db.pool, world.organizationId)).toEqual(before);
  return out;
}

const authorizeBody = (args: string, extra = "") =>
  `{"tool":${JSON.stringify(world.tool)},"arguments":${args}${extra}}`;

describe("POST /v1/authorize: the text rule", () => {
  it("refuses a lone surrogate or U+0000 escaped in arguments with INVALID_ARGUMENTS, in tool or idempotency_key with INVALID_REQUEST; nothing recorded", async () => {
    for (const bad of ["\\ud800", "\\udc00", "a\\ud800b", "\\u0000", "x\\u0000"]) {
      const inArgs = await expectNothingRecorded(() =>
        post("/v1/authorize", authorizeBody(`{"order":"${bad}","amount":5}`)),
      );
      expect(inArgs.status, bad).toBe(400);
      expect(inArgs.body).toMatchObject({
        allowed: false,
        status: "invalid_request",
        code: "INVALID_ARGUMENTS",
      });
      expect(inArgs.body.detail).toMatch(/^arguments\.order: /);
      const inTool = await expectNothingRecorded(() =>
        post("/v1/authorize", `{"tool":"${bad}","arguments":{}}`),
      );
      expect(inTool.body).toMatchObject({
        allowed: false,
        status: "invalid_request",
        code: "INVALID_REQUEST",
      });
      const inKey = await expectNothingRecorded(() =>
        post("/v1/authorize", authorizeBody(`{"amount":5}`, `,"idempotency_key":"k${bad}"`)),
      );
      expect(inKey.status).toBe(400);
      expect(inKey.body).toMatchObject({
        allowed: false,
        status: "invalid_request",
        code: "INVALID_REQUEST",
      });
    }
  });

  it("refuses raw surrogates and bytes that are not UTF-8 instead of deciding on replaced text", async () => {
    for (const bad of [LONE_HIGH, LONE_LOW, [0xff], [0xc0, 0xaf], [0xe2, 0x82]]) {
      const inArgs = await expectNothingRecorded(() =>
        post("/v1/authorize", raw(`{"tool":"${world.tool}","arguments":{"order":"o-`, bad, `","amount":5}}`)),
      );
      expect(inArgs.status).toBe(400);
      expect(inArgs.body).toMatchObject({ allowed: false, code: "INVALID_ARGUMENTS" });
      const inKey = await expectNothingRecorded(() =>
        post(
          "/v1/authorize",
          raw(`{"tool":"${world.tool}","arguments":{"amount":5},"idempotency_key":"`, bad, `"}`),
        ),
      );
      expect(inKey.body).toMatchObject({ allowed: false, code: "INVALID_REQUEST" });
    }
  });

  it("keeps different idempotency keys apart: U+FFFD is a key of its own, lone surrogates are refused", async () => {
    const first = await post(
      "/v1/authorize",
      authorizeBody(`{"order":"o-fffd","amount":5}`, `,"idempotency_key":"\\ufffd-${Date.now()}"`),
    );
    expect(first.body).toMatchObject({ allowed: true, status: "authorized" });
    for (const k of ["\\ud800", "\\udc00"]) {
      const other = await expectNothingRecorded(() =>
        post(
          "/v1/authorize",
          authorizeBody(`{"order":"o-fffd","amount":5}`, `,"idempotency_key":"${k}-${Date.now()}"`),
        ),
      );
      expect(other.status).toBe(400);
      expect(other.body.protected_action_id).toBeUndefined();
    }
  });

  it("refuses exact duplicate member names: in arguments INVALID_ARGUMENTS (never decided as the last one), elsewhere INVALID_REQUEST", async () => {
    const dup = await expectNothingRecorded(() =>
      post("/v1/authorize", authorizeBody(`{"order":"o-d","amount":5,"amount":500}`)),
    );
    expect(dup.status).toBe(400);
    expect(dup.body).toMatchObject({ allowed: false, status: "invalid_request", code: "INVALID_ARGUMENTS" });
    expect(dup.body.detail).toMatch(/arguments\.amount/);
    const deep = await expectNothingRecorded(() =>
      post("/v1/authorize", authorizeBody(`{"amount":5,"lines":[{"sku":"a"},{"sku":"b","q":1,"sku":"c"}]}`)),
    );
    expect(deep.body).toMatchObject({ code: "INVALID_ARGUMENTS" });
    const escaped = await expectNothingRecorded(() =>
      post("/v1/authorize", authorizeBody(`{"amount":5,"\\u0061mount":6}`)),
    );
    expect(escaped.body).toMatchObject({ code: "INVALID_ARGUMENTS" });
    const top = await expectNothingRecorded(() =>
      post("/v1/authorize", `{"tool":"${world.tool}","tool":"other","arguments":{"amount":5}}`),
    );
    expect(top.body).toMatchObject({ allowed: false, status: "invalid_request", code: "INVALID_REQUEST" });
  });

  it("checks the key first: without one, a body breaking the rule is 401", async () => {
    const res = await expectNothingRecorded(() =>
      post("/v1/authorize", authorizeBody(`{"amount":"\\ud800"}`), { authorization: "" }),
    );
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ allowed: false, code: "UNAUTHORIZED" });
  });

  it("refuses U+0000 or bad percent-encoding in the query string with INVALID_REQUEST, and a malformed path with 404 in the same shape", async () => {
    for (const q of ["?x=%00", "?x=%ZZ", "?x=%ED%A0%80"]) {
      const res = await expectNothingRecorded(() => post(`/v1/authorize${q}`, authorizeBody(`{"amount":5}`)));
      expect(res.status, q).toBe(400);
      expect(res.body).toMatchObject({ allowed: false, status: "invalid_request", code: "INVALID_REQUEST" });
    }
    for (const p of ["/v1/authorize%ZZ", "/v1/%00", "/v1/authorize/%FF"]) {
      const res = await post(p, authorizeBody(`{"amount":5}`));
      expect(res.status, p).toBe(404);
      expect(res.body).toMatchObject({ allowed: false, status: "invalid_request", code: "NOT_FOUND" });
    }
  });
});

describe("POST /v1/authorize: fastify's own errors in the endpoint's shape", () => {
  const refusal = { allowed: false, status: "invalid_request", code: "INVALID_REQUEST" };

  it("bad JSON, an empty body, a wrong content type and an oversized body", async () => {
    const bad = await expectNothingRecorded(() => post("/v1/authorize", '{"tool": "x"'));
    expect([bad.status, bad.body]).toEqual([400, expect.objectContaining(refusal)]);
    const empty = await post("/v1/authorize", "");
    expect([empty.status, empty.body]).toEqual([400, expect.objectContaining(refusal)]);
    const text = await post("/v1/authorize", authorizeBody("{}"), { "content-type": "text/plain" });
    expect([text.status, text.body]).toEqual([415, expect.objectContaining(refusal)]);
    const form = await post("/v1/authorize", "tool=x", {
      "content-type": "application/x-www-form-urlencoded",
    });
    expect([form.status, form.body]).toEqual([415, expect.objectContaining(refusal)]);
    const big = await expectNothingRecorded(() =>
      post("/v1/authorize", authorizeBody(`{"pad":"${"x".repeat(1024 * 1024)}"}`)),
    );
    expect([big.status, big.body]).toEqual([413, expect.objectContaining(refusal)]);
    for (const r of [bad, empty, text, big]) {
      expect(typeof r.body.detail).toBe("string");
      expect(r.text).not.toMatch(/FST_ERR|statusCode/);
    }
  });

  it("other methods are 405 with Allow: POST; unknown paths 404 with allowed false", async () => {
    for (const method of ["GET", "PUT", "DELETE", "OPTIONS", "TRACE", "PATCH"]) {
      const res = await send(method, "/v1/authorize");
      expect(res.status, method).toBe(405);
      expect(res.allow).toBe("POST");
      expect(res.body).toMatchObject(refusal);
    }
    const nowhere = await fetch(`${gw.gateway.url}/v2/authorize`, { method: "POST" });
    expect(nowhere.status).toBe(404);
    expect(await nowhere.json()).toMatchObject({ allowed: false, code: "NOT_FOUND" });
  });
});

describe("/mcp: the text rule and fastify's errors in JSON-RPC", () => {
  const call = (params: string, id: number | string = 7) =>
    `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":${params}}`;

  it("a tools/call breaking the rule is the tool's refusal (never -32603): INVALID_ARGUMENTS, INVALID_META, INVALID_REQUEST; nothing recorded", async () => {
    const cases: [Buffer | string, string][] = [
      [call(`{"name":"${world.tool}","arguments":{"amount":"\\ud800"}}`), "INVALID_ARGUMENTS"],
      [call(`{"name":"${world.tool}","arguments":{"note":"\\u0000"}}`), "INVALID_ARGUMENTS"],
      [call(`{"name":"${world.tool}","arguments":{"amount":5,"amount":500}}`), "INVALID_ARGUMENTS"],
      [raw(call(`{"name":"${world.tool}","arguments":{"note":"`), LONE_LOW, `"}}}`), "INVALID_ARGUMENTS"],
      [
        call(`{"name":"${world.tool}","arguments":{},"_meta":{"service/idempotency-key":"\\udc00"}}`),
        "INVALID_META",
      ],
      [call(`{"name":"t\\u0000","arguments":{}}`), "INVALID_REQUEST"],
    ];
    for (const [body, code] of cases) {
      const res = await expectNothingRecorded(() => post("/mcp", body));
      expect(res.status, String(body)).toBe(200);
      expect(res.body).toMatchObject({
        jsonrpc: "2.0",
        id: 7,
        result: { isError: true, structuredContent: { service: { status: "invalid_request", code } } },
      });
      expect(res.text).not.toMatch(/-32603|Error:|at /);
    }
  });

  it("another method's params breaking the rule is -32602; a message breaking it elsewhere is 400 -32600", async () => {
    const init = await post(
      "/mcp",
      `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"\\ud800"}}`,
    );
    expect(init.status).toBe(200);
    expect(init.body).toMatchObject({ jsonrpc: "2.0", id: 1, error: { code: -32602 } });
    const method = await post("/mcp", `{"jsonrpc":"2.0","id":2,"method":"tools/\\u0000"}`);
    expect(method.status).toBe(400);
    expect(method.body).toMatchObject({ jsonrpc: "2.0", id: 2, error: { code: -32600 } });
    const batch = await post("/mcp", `[{"jsonrpc":"2.0","id":3,"method":"ping","id":4}]`);
    expect(batch.status).toBe(400);
    expect(batch.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
    const noKey = await post("/mcp", call(`{"name":"x","arguments":{"a":"\\ud800"}}`), { authorization: "" });
    expect(noKey.status).toBe(401);
    expect(noKey.body).toMatchObject({ error: { code: -32001 } });
  });

  it("params failing the SDK's own schema are -32602 naming the member, never -32603 with the exception's text", async () => {
    for (const body of [
      `{"jsonrpc":"2.0","id":"i","method":"initialize"}`,
      `{"jsonrpc":"2.0","id":"i","method":"tools/call","params":{"arguments":{}}}`,
      `{"jsonrpc":"2.0","id":"i","method":"tools/list","params":{"cursor":5}}`,
    ]) {
      const res = await expectNothingRecorded(() => post("/mcp", body));
      expect(res.status, body).toBe(200);
      expect(res.body).toMatchObject({ jsonrpc: "2.0", id: "i", error: { code: -32602 } });
      expect(res.body.error.message).not.toMatch(/invalid_type|expected|\n/);
    }
  });

  it("bad JSON -32700, empty body -32700, wrong content type 415, oversized 413 -32600, all JSON-RPC", async () => {
    const bad = await post("/mcp", "{nope");
    expect([bad.status, bad.body.error.code]).toEqual([400, -32700]);
    const empty = await post("/mcp", "");
    expect([empty.status, empty.body.error.code]).toEqual([400, -32700]);
    const text = await post("/mcp", "{}", { "content-type": "text/plain" });
    expect([text.status, text.body.jsonrpc]).toEqual([415, "2.0"]);
    const big = await post("/mcp", call(`{"name":"x","arguments":{"pad":"${"x".repeat(1024 * 1024)}"}}`));
    expect([big.status, big.body.error.code]).toEqual([413, -32600]);
  });

  it("a wrong method is 405 before the body is read, whatever the body", async () => {
    for (const path of ["/mcp", "/v1/authorize"]) {
      const res = await fetch(`${gw.gateway.url}${path}`, {
        method: "PUT",
        headers: { "content-type": "application/json", authorization: `Bearer ${world.key}` },
        body: '{"a":"\\ud800","a":1',
      });
      expect(res.status, path).toBe(405);
    }
  });

  it("OPTIONS, TRACE and every other method but POST are 405 -32000 with Allow: POST", async () => {
    for (const method of ["OPTIONS", "TRACE", "GET", "PUT", "PATCH", "DELETE"]) {
      const res = await send(method, "/mcp");
      expect(res.status, method).toBe(405);
      expect(res.allow).toBe("POST");
      expect(res.body).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
    }
  });
});
