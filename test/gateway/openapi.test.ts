/**
 * The Gateway's OpenAPI document (docs/gateway.md "The OpenAPI document"): served at
 * GET /openapi.json without a key, equal to the committed docs/openapi/gateway.json, and every
 * answer a real Gateway gives to POST /v1/authorize valid against it (Ajv, JSON Schema 2020-12)
 * for the HTTP status it came with: authorized, approval_pending, denied, rejected, the
 * invalid_request answers, 401, 405 and 503; and on /mcp a refusal's structuredContent, 401 and 406.
 */
import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { decideApproval } from "../../core/src/approvals/index.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import {
  createAuthorizationWorld,
  signDecision,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { startTestGateway, type TestGateway } from "./harness.js";

const committed = readFileSync(new URL("../../docs/openapi/gateway.json", import.meta.url), "utf8");

let db: TestDatabase;
let gw: TestGateway;
let busy: TestGateway;
let world: AuthorizationWorld;
let served: { components: { schemas: Record<string, unknown> }; paths: Record<string, unknown> };
let ajv: Ajv2020;

beforeAll(async () => {
  db = await createTestDatabase();
  gw = await startTestGateway(db);
  // The same database and keys, an organization queue of 0: every decision waits too long (GATEWAY_BUSY).
  busy = await startTestGateway(db, {
    keyHashSecret: gw.keyHashSecret,
    signingKey: gw.signingKey,
    queue: { perOrganization: 0, maxWaiting: 0 },
  });
  world = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
  served = JSON.parse(committed);
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  // The document as one schema resource, so each answer's `$ref`s resolve inside it.
  ajv.addSchema({ ...served, $id: "gateway.json" });
});
afterAll(async () => {
  await busy?.close();
  await gw?.close();
  await db?.drop();
});

/** The validator of POST /v1/authorize's answer for an HTTP status, as the document declares it. */
function answerSchema(status: number): ValidateFunction {
  const pointer = `gateway.json#/paths/~1v1~1authorize/post/responses/${status}/content/application~1json/schema`;
  const validate = ajv.getSchema(pointer);
  if (!validate) throw new Error(`the document declares no answer for HTTP ${status}`);
  return validate;
}

function expectValid(res: { status: number; body: unknown }) {
  const validate = answerSchema(res.status);
  expect(validate(res.body), JSON.stringify({ body: res.body, errors: validate.errors })).toBe(true);
}

let n = 0;
const call = (amount: number) => ({
  tool: world.tool,
  arguments: { order: `o-${++n}`, amount },
  idempotency_key: `openapi-${n}-${randomUUID()}`,
});

describe("GET /openapi.json", () => {
  it("is the committed docs/openapi/gateway.json, byte for byte, without a key", async () => {
    const res = await fetch(`${gw.gateway.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.text()).toBe(committed);
    expect(served.paths).toHaveProperty(["/v1/authorize"]);
    expect(served.paths).toHaveProperty(["/mcp"]);
  });

  it("ignores a key, even a bad one: the document holds nothing of anyone's", async () => {
    const res = await fetch(`${gw.gateway.url}/openapi.json`, { headers: { authorization: "Bearer nope" } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(committed);
  });

  it("is a document Ajv compiles, whose schemas refuse what the Gateway never answers", () => {
    // A schema that accepted anything would make every check below pass: these must fail.
    expect(answerSchema(200)({ allowed: true, status: "authorized" })).toBe(false);
    expect(
      answerSchema(200)({ allowed: false, status: "unauthorized", code: "UNAUTHORIZED", detail: "x" }),
    ).toBe(false);
    expect(
      answerSchema(400)({ allowed: false, status: "invalid_request", code: "POLICY_DENIED", detail: "x" }),
    ).toBe(false);
    expect(
      answerSchema(503)({ allowed: false, status: "unavailable", code: "GATEWAY_BUSY", detail: "x" }),
    ).toBe(false);
  });
});

describe("POST /v1/authorize answers validate against the document", () => {
  it("200 authorized", async () => {
    const res = await gw.authorize(world.key, call(40));
    expect(res.body).toMatchObject({ allowed: true, status: "authorized" });
    expectValid(res);
  });

  it("200 approval_pending, then rejected with its receipt ids", async () => {
    const req = call(500);
    const pending = await gw.authorize(world.key, req);
    expect(pending.body).toMatchObject({ status: "approval_pending", policy: { disclosure: "rule" } });
    expectValid(pending);
    const object = await signDecision(
      db.pool,
      pending.body.approval_request_id,
      world.approver.signer,
      "REJECTION",
    );
    await decideApproval(db.pool, {
      organizationId: world.organizationId,
      approvalRequestId: pending.body.approval_request_id,
      userId: world.approver.userId,
      object,
      identity: gw.gateway.identity,
    });
    const rejected = await gw.authorize(world.key, req);
    expect(rejected.body).toMatchObject({ status: "rejected", code: "REJECTED" });
    expect(rejected.body.receipt_id).toEqual(expect.any(String));
    expectValid(rejected);
  });

  it("200 denied with the agent explanation", async () => {
    const res = await gw.authorize(world.key, call(20000));
    expect(res.body).toMatchObject({ status: "denied", code: "POLICY_DENIED" });
    expectValid(res);
  });

  it("400 for a body outside the schema, an unknown tool and broken argument limits", async () => {
    for (const body of [
      { tool: world.tool, extra: 1 },
      { tool: "no-such-tool", arguments: {} },
      { tool: world.tool, arguments: { amount: 1.5 } },
      "not json",
    ]) {
      const res = await gw.authorize(world.key, body);
      expect(res.status).toBe(400);
      expectValid(res);
    }
  });

  it("401 without a valid key, 405 for another method", async () => {
    const res = await gw.authorize(null, call(40));
    expect(res.status).toBe(401);
    expectValid(res);
    const get = await fetch(`${gw.gateway.url}/v1/authorize`);
    const body = await get.json();
    expect(get.status).toBe(405);
    expectValid({ status: 405, body });
  });

  it("503 GATEWAY_BUSY when the organization's queue is full", async () => {
    const res = await busy.authorize(world.key, call(40));
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: "GATEWAY_BUSY", retryable: true });
    expectValid(res);
  });
});

describe("/mcp answers validate against the document", () => {
  const mcp = (key: string | null, body: unknown, accept = "application/json, text/event-stream") =>
    fetch(`${gw.gateway.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept,
        ...(key ? { authorization: `Bearer ${key}` } : {}),
      },
      body: JSON.stringify(body),
    });
  const component = (name: string) => ajv.getSchema(`gateway.json#/components/schemas/${name}`)!;
  const mcpAnswer = (status: number) =>
    ajv.getSchema(`gateway.json#/paths/~1mcp/post/responses/${status}/content/application~1json/schema`)!;

  it("a refusal's structuredContent (a decision-only tool called through /mcp), 401 and 406", async () => {
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: world.tool, arguments: {} } };
    const res = await mcp(world.key, call);
    // The JSON-RPC result as received; its structuredContent is checked by the document, not here.
    const { structuredContent } = z
      .object({ result: z.object({ structuredContent: z.record(z.string(), z.unknown()) }) })
      .parse(await res.json()).result;
    expect(structuredContent.service).toMatchObject({ code: "DECISION_ONLY_TOOL" });
    const refusal = component("ServiceRefusalContent");
    expect(refusal(structuredContent), JSON.stringify(refusal.errors)).toBe(true);
    expect(refusal({ service: { code: "DECISION_ONLY_TOOL" } })).toBe(false);
    for (const [status, answer] of [
      [401, await mcp(null, call)],
      [406, await mcp(world.key, call, "application/json")],
    ] as const) {
      expect(answer.status).toBe(status);
      const validate = mcpAnswer(status);
      expect(validate(await answer.json()), JSON.stringify(validate.errors)).toBe(true);
    }
  });
});
