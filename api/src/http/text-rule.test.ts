/**
 * The text rule and the pre-route errors on the real Cloud API, through its
 * real routes on a real PostgreSQL: hostile text in bodies (the dry run,
 * names of agents and API keys), in query filters and in crafted list
 * cursors is 400 VALIDATION_FAILED, a malformed path 404, and every such
 * answer has the error body, X-Request-Id and Cache-Control: no-store, and
 * changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertApiKey } from "@countersign/core/keys";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import {
  Browser,
  randomIp,
  startCloudApi,
  type Answer,
  type CloudApi,
} from "../../../test/fixtures/cloud-api.js";
import { createAuthorizationWorld, type AuthorizationWorld } from "../../../test/fixtures/authorization.js";
import {
  configurationSnapshot,
  orgWithOwner,
  type OrgWithOwner,
} from "../../../test/fixtures/configuration.js";
import { recorded } from "../../../test/gateway/harness.js";

let db: TestDatabase;
let api: CloudApi;
let o: OrgWithOwner;
let world: AuthorizationWorld;
let reader: (
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<Answer>;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startCloudApi(db, { defaultPlan: "enterprise" });
  o = await orgWithOwner(api);
  world = await createAuthorizationWorld(db.pool, api.keyHashSecret);
  const k = await insertApiKey(db.pool, api.keyHashSecret, {
    organizationId: world.organizationId,
    kind: "management",
    environment: "live",
    name: "r",
    scopes: ["read", "receipts:read", "approvals:read"],
    createdBy: world.ownerId,
  });
  const b = new Browser(api.base, randomIp(), null);
  reader = (method, path, body, headers = {}) =>
    b.request(method, path, body, { authorization: `Bearer ${k.key}`, ...headers });
});
afterAll(async () => {
  await api?.close();
  await db?.drop();
});

const raw = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : Buffer.from(p))));
const LONE_HIGH = [0xed, 0xa0, 0x80];

/** Everything a refusal here must change: nothing in the configuration, the decisions or the audit log. */
async function state() {
  return {
    configuration: await configurationSnapshot(db.pool),
    recorded: await recorded(db.pool, world.organizationId),
    audit: (await db.pool.query("select count(*)::int as n from audit_log")).rows[0].n,
  };
}

async function expectRefused(call: () => Promise<Answer>, status: number, code: string): Promise<Answer> {
  const before = await state();
  const res = await call();
  expect({ status: res.status, code: res.body?.error?.code }, res.text).toEqual({ status, code });
  expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  expect(res.headers.get("cache-control")).toBe("no-store");
  expect(Object.keys(res.body)).toEqual(["error"]);
  expect(typeof res.body.error.message).toBe("string");
  expect(await state()).toEqual(before);
  return res;
}

describe("Cloud API: the text rule in bodies", () => {
  const hostile: [string, Buffer][] = [
    ["escaped lone surrogate", raw('{"name":"bot \\ud800"}')],
    ["escaped low surrogate", raw('{"name":"\\udc00 bot"}')],
    ["escaped U+0000", raw('{"name":"bot\\u0000"}')],
    ["raw encoded surrogate", raw('{"name":"bot ', LONE_HIGH, '"}')],
    ["invalid UTF-8", raw('{"name":"bot ', [0xff, 0xfe], '"}')],
    ["duplicate member", raw('{"name":"a","name":"b"}')],
  ];

  it("agent names: VALIDATION_FAILED naming the member, nothing created or audited", async () => {
    for (const [what, body] of hostile) {
      const res = await expectRefused(
        () => o.owner.post(`/orgs/${o.org}/agents`, body),
        400,
        "VALIDATION_FAILED",
      );
      expect(res.body.error.details.issues, what).toEqual([
        expect.objectContaining({ path: "name", code: "invalid_text" }),
      ]);
    }
  });

  it("API key names: VALIDATION_FAILED, no key created", async () => {
    const agent = (await o.owner.post(`/orgs/${o.org}/agents`, { name: `key-agent-${Date.now()}` })).body
      .agent;
    for (const [, body] of hostile) {
      const withAgent = Buffer.from(
        body.toString("latin1").replace('{"name"', `{"kind":"gateway","agent_id":"${agent.id}","name"`),
        "latin1",
      );
      await expectRefused(() => o.owner.post(`/orgs/${o.org}/api-keys`, withAgent), 400, "VALIDATION_FAILED");
    }
  });

  it("the dry run: hostile arguments are INVALID_ARGUMENTS (as for a simulated call), a hostile tool VALIDATION_FAILED, never 500", async () => {
    const path = `/orgs/${world.organizationId}/agents/${world.agentId}/dry-run`;
    for (const body of [
      raw(`{"tool":"${world.tool}","arguments":{"order":"\\ud800","amount":5}}`),
      raw(`{"tool":"${world.tool}","arguments":{"order":"\\u0000","amount":5}}`),
      raw(`{"tool":"${world.tool}","arguments":{"amount":5,"amount":500}}`),
      raw(`{"tool":"${world.tool}","arguments":{"order":"`, LONE_HIGH, `"}}`),
    ]) {
      await expectRefused(() => reader("POST", path, body), 422, "INVALID_ARGUMENTS");
    }
    await expectRefused(
      () => reader("POST", path, raw(`{"tool":"${world.tool}\\udfff","arguments":{}}`)),
      400,
      "VALIDATION_FAILED",
    );
  });
});

describe("Cloud API: query filters and cursors validated in full before SQL", () => {
  const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
  const encRaw = (s: string) => Buffer.from(s, "utf8").toString("base64url");
  const id = "00000000-0000-4000-8000-000000000000";

  it("U+0000, bad percent-encoding or non-UTF-8 in a filter: VALIDATION_FAILED naming it", async () => {
    for (const q of ["tool=%00", "action=a%00b", "tool=%ZZ", "tool=%ED%A0%80", "tool=%FF"]) {
      const res = await expectRefused(
        () => reader("GET", `/orgs/${world.organizationId}/actions?${q}`),
        400,
        "VALIDATION_FAILED",
      );
      expect(res.body.error.details.issues[0].path, q).toBe(q.split("=")[0]);
    }
    await expectRefused(
      () => reader("GET", `/orgs/${world.organizationId}/receipts?outcome=%00`),
      400,
      "VALIDATION_FAILED",
    );
    await expectRefused(
      () => reader("GET", `/orgs/${world.organizationId}/actions?since=0000-01-01T00:00:00Z`),
      400,
      "VALIDATION_FAILED",
    );
    // A filter that is merely no match still answers an empty page.
    expect((await reader("GET", `/orgs/${world.organizationId}/receipts?outcome=rejected`)).body).toEqual({
      items: [],
      next_cursor: null,
    });
  });

  it("crafted cursors (empty or unreal times, year 99999999, hostile text, other shapes): VALIDATION_FAILED", async () => {
    const cursors = [
      enc(["", id]),
      enc(["not-a-date", id]),
      enc(["99999999-01-01T00:00:00.000Z", id]),
      enc(["+099999-01-01T00:00:00.000Z", id]),
      enc(["2024-02-30T00:00:00.000Z", id]),
      enc(["0000-01-01T00:00:00.000Z", id]),
      enc(["2024-01-01T00:00:00Z", id]),
      enc(["2024-01-01T00:00:00.000Z", "not-a-uuid"]),
      enc(["2024-01-01T00:00:00.000Z", id, "extra"]),
      encRaw(`["2024-01-01T00:00:00.000Z\\u0000","${id}"]`),
      encRaw(`["\\ud800","${id}"]`),
      "not base64 !",
      "",
    ];
    // Reads: the state is compared once around them all.
    const before = await state();
    for (const lists of ["actions", "receipts", "agents", "tools", "approvals", "mcp-servers"]) {
      for (const c of cursors) {
        const res = await reader(
          "GET",
          `/orgs/${world.organizationId}/${lists}?cursor=${encodeURIComponent(c)}`,
        );
        expect({ status: res.status, code: res.body?.error?.code }, `${lists} ${c}`).toEqual({
          status: 400,
          code: "VALIDATION_FAILED",
        });
        expect(res.body.error.details.issues[0]).toMatchObject({ path: "cursor", code: "invalid_cursor" });
        expect(res.headers.get("cache-control")).toBe("no-store");
      }
    }
    expect(await state()).toEqual(before);
    // Names order the policies list: any text without U+0000 or lone surrogates is a position in it.
    expect(
      (await reader("GET", `/orgs/${world.organizationId}/policies?cursor=${enc(["", id])}`)).status,
    ).toBe(200);
    await expectRefused(
      () => reader("GET", `/orgs/${world.organizationId}/policies?cursor=${encRaw(`["\\u0000","${id}"]`)}`),
      400,
      "VALIDATION_FAILED",
    );
    await expectRefused(
      () => o.owner.get(`/orgs/${o.org}/audit?cursor=${enc("99999999999999999999")}`),
      400,
      "VALIDATION_FAILED",
    );
  });

  it("a cursor the list wrote still pages", async () => {
    for (let i = 0; i < 3; i++)
      await o.owner.post(`/orgs/${o.org}/agents`, { name: `pager-${i}-${Date.now()}` });
    const first = await o.owner.get(`/orgs/${o.org}/agents?limit=1`);
    const next = await o.owner.get(`/orgs/${o.org}/agents?limit=1&cursor=${first.body.next_cursor}`);
    expect(next.status).toBe(200);
    expect(next.body.items[0].id).not.toBe(first.body.items[0].id);
  });
});

describe("Cloud API: header values it reads", () => {
  it("bytes beyond ASCII in Authorization, Origin, the CSRF header, X-Forwarded-For or X-Request-Id get the header's own refusal, never a 5xx", async () => {
    const high = "\u00ff\u00ed\u00a0\u0080";
    await expectRefused(
      () =>
        reader("GET", `/orgs/${world.organizationId}/agents`, undefined, {
          authorization: `Bearer svc_live_${high}`,
        }),
      401,
      "UNAUTHENTICATED",
    );
    await expectRefused(
      () => o.owner.request("POST", `/orgs/${o.org}/agents`, { name: "x" }, { origin: `https://${high}` }),
      403,
      "CSRF_FAILED",
    );
    await expectRefused(
      () => o.owner.request("POST", `/orgs/${o.org}/agents`, { name: "x" }, { "x-service-csrf": high }),
      403,
      "CSRF_FAILED",
    );
    const odd = await o.owner.request("GET", `/orgs/${o.org}/agents`, undefined, {
      "x-forwarded-for": high,
      "x-request-id": `r-${high}`,
    });
    expect(odd.status).toBe(200);
    expect(odd.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("Cloud API: a malformed path and fastify's own errors in the spec's shape", () => {
  it("invalid percent-encoding, U+0000 or non-UTF-8 in a path, and a path id over 100 characters: 404 NOT_FOUND", async () => {
    for (const p of [
      `/orgs/${o.org}/agents/%ZZ`,
      `/orgs/${o.org}/agents/%00`,
      `/orgs/${o.org}/agents/%ED%A0%80`,
      `/orgs/%E0%80/agents`,
      `/orgs/${o.org}/agents/${"a".repeat(101)}`,
      `/orgs/${"1".repeat(300)}`,
    ]) {
      await expectRefused(() => o.owner.get(p), 404, "NOT_FOUND");
    }
    await expectRefused(() => o.owner.request("DELETE", `/me/identities/%00kid`), 404, "NOT_FOUND");
  });

  it("bad JSON, an empty body, a wrong content type and an oversized body", async () => {
    await expectRefused(() => o.owner.post(`/orgs/${o.org}/agents`, raw('{"name":')), 400, "INVALID_JSON");
    await expectRefused(
      () => o.owner.request("POST", `/orgs/${o.org}/agents`, raw(""), { "content-type": "application/json" }),
      400,
      "INVALID_JSON",
    );
    await expectRefused(
      () => o.owner.request("POST", `/orgs/${o.org}/agents`, raw("name=x"), { "content-type": "text/plain" }),
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    );
    await expectRefused(
      () => o.owner.post(`/orgs/${o.org}/agents`, raw(`{"name":"${"x".repeat(1024 * 1024)}"}`)),
      413,
      "PAYLOAD_TOO_LARGE",
    );
  });
});
