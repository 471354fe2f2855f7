/**
 * MCP servers, decision-only integrations and discovery through the real
 * server (SPEC 2.3, 6.4, 8.1, 8.3): URLs under the address rules, the
 * credential stored encrypted and never returned, discovery through the MCP
 * SDK client against real MCP servers started here (paging, too many pages,
 * too much, unreachable, timeout, refused credential, DISCOVERY_BUSY), IN_USE,
 * and that refusals change nothing.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { startCloudApi, type CloudApi } from "../../../test/fixtures/cloud-api.js";
import {
  addMember,
  expectRefusedUnchanged,
  managementKey,
  orgWithOwner,
  type OrgWithOwner,
} from "../../../test/fixtures/configuration.js";
import { createTestCa, type TestCa } from "../../../test/fixtures/https-receiver.js";
import { newIdentity } from "../../../test/fixtures/identities.js";
import {
  pagedTools,
  simpleTool,
  startMcpServer,
  type McpTestServer,
} from "../../../test/fixtures/mcp-server.js";
import { startServiceAwareUpstream } from "../../../test/fixtures/service-aware-upstream.js";

let db: TestDatabase;
let api: CloudApi;
let ca: TestCa;
const servers: McpTestServer[] = [];
const credentialKey = randomBytes(32);

beforeAll(async () => {
  db = await createTestDatabase();
  ca = createTestCa();
  api = await startCloudApi(db, {
    defaultPlan: "startup",
    extra: { mcp: { credentialKey, allowLoopbackUrls: true, ca: [ca.caPem] } },
  });
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await api?.close();
  await db?.drop();
  ca?.dispose();
});

async function upstream(opts: Parameters<typeof startMcpServer>[1]) {
  const s = await startMcpServer(ca, opts);
  servers.push(s);
  return s;
}

const SECRET = `Bearer up-${randomBytes(12).toString("hex")}`;

async function createServer(o: OrgWithOwner, url: string, extra: Record<string, unknown> = {}) {
  const res = await o.owner.post(`/orgs/${o.org}/mcp-servers`, {
    kind: "mcp",
    name: `srv-${randomBytes(3).toString("hex")}`,
    url,
    ...extra,
  });
  expect(res.status).toBe(201);
  return res.body.mcp_server;
}

describe("MCP servers", () => {
  it("stores the credential encrypted, never returns or logs it, and sends it upstream on discovery", async () => {
    const up = await upstream({ list: pagedTools(3, 10), authorization: SECRET });
    const o = await orgWithOwner(api);
    const res = await o.owner.post(`/orgs/${o.org}/mcp-servers`, {
      kind: "mcp",
      name: "payments",
      url: up.url,
      authorization: SECRET,
    });
    expect(res.status).toBe(201);
    expect(res.body.mcp_server).toMatchObject({
      kind: "mcp",
      name: "payments",
      url: up.url,
      status: "active",
      credential: { configured: true, version: 1 },
      server_kid: null,
    });
    expect(res.text).not.toContain(SECRET.slice(7));
    const id = res.body.mcp_server.id;
    const stored = (await db.pool.query("select credential_encrypted from mcp_servers where id = $1", [id]))
      .rows[0].credential_encrypted as Buffer;
    expect(stored.includes(Buffer.from(SECRET.slice(7)))).toBe(false);
    expect((await o.owner.get(`/orgs/${o.org}/mcp-servers/${id}`)).text).not.toContain(SECRET.slice(7));

    const found = await o.owner.post(`/orgs/${o.org}/mcp-servers/${id}/discover`);
    expect(found.status).toBe(200);
    expect(found.body.tools.map((t: { name: string }) => t.name)).toEqual(["tool_0", "tool_1", "tool_2"]);
    expect(found.body.tools[0]).toMatchObject({ schema_valid: true, schema_problem: null, tool_id: null });
    expect(up.authorizations.filter((a) => a !== undefined).every((a) => a === SECRET)).toBe(true);
    // rotating the credential bumps its version
    const rotated = await o.owner.patch(`/orgs/${o.org}/mcp-servers/${id}`, {
      authorization: "Bearer other",
    });
    expect(rotated.body.mcp_server.credential).toEqual({ configured: true, version: 2 });
    const audits = await db.pool.query(
      "select details::text as d from audit_log where organization_id = $1",
      [o.org],
    );
    expect(audits.rows.some((r) => r.d.includes(SECRET.slice(7)) || r.d.includes("Bearer other"))).toBe(
      false,
    );
    expect(api.logs.some((l) => l.includes(SECRET.slice(7)))).toBe(false);
  });

  it("refuses URLs the address rules of 6.4 refuse, with details.reason, and changes nothing", async () => {
    const o = await orgWithOwner(api);
    const post = (url: string) => o.owner.post(`/orgs/${o.org}/mcp-servers`, { kind: "mcp", name: "x", url });
    const cases: [string, string][] = [
      ["http://example.com/mcp", "not_https"],
      ["https://user:pw@example.com/mcp", "has_userinfo"],
      ["https://10.1.2.3/mcp", "private"],
      ["https://169.254.169.254/mcp", "link_local"],
    ];
    for (const [url, reason] of cases) {
      const res = await expectRefusedUnchanged(db.pool, () => post(url), 422, "URL_NOT_ALLOWED");
      expect(typeof res.body.error.details.reason).toBe("string");
      if (reason === "not_https" || reason === "has_userinfo")
        expect(res.body.error.details.reason).toBe(reason);
    }
    const s = await createServer(o, "https://127.0.0.1:9/mcp");
    await expectRefusedUnchanged(
      db.pool,
      () => o.owner.patch(`/orgs/${o.org}/mcp-servers/${s.id}`, { url: "https://192.168.1.1/mcp" }),
      422,
      "URL_NOT_ALLOWED",
    );
  });

  it("refuses loopback URLs when the loopback switch is off", async () => {
    const strict = await startCloudApi(db, {
      defaultPlan: "startup",
      extra: { mcp: { credentialKey, allowLoopbackUrls: false } },
    });
    try {
      const owner = strict.browser();
      await owner.signUpAndIn(strict.smtp);
      const org = (await owner.post("/orgs", { name: "Strict" })).body.organization.id;
      const res = await expectRefusedUnchanged(
        db.pool,
        () =>
          owner.post(`/orgs/${org}/mcp-servers`, {
            kind: "mcp",
            name: "lo",
            url: "https://127.0.0.1:8443/mcp",
          }),
        422,
        "URL_NOT_ALLOWED",
      );
      expect(res.body.error.details.reason).toBeTruthy();
    } finally {
      await strict.close();
    }
  });

  it("answers NAME_TAKEN and 402 at the Developer plan's 5 servers", async () => {
    const o = await orgWithOwner(api, { plan: "developer", db: db.pool });
    await o.owner.post(`/orgs/${o.org}/mcp-servers`, { kind: "decision_only", name: "same" });
    await expectRefusedUnchanged(
      db.pool,
      () =>
        o.owner.post(`/orgs/${o.org}/mcp-servers`, {
          kind: "mcp",
          name: "same",
          url: "https://127.0.0.1:9/mcp",
        }),
      409,
      "NAME_TAKEN",
    );
    for (let i = 0; i < 4; i++)
      expect(
        (await o.owner.post(`/orgs/${o.org}/mcp-servers`, { kind: "decision_only", name: `d${i}` })).status,
      ).toBe(201);
    await expectRefusedUnchanged(
      db.pool,
      () => o.owner.post(`/orgs/${o.org}/mcp-servers`, { kind: "decision_only", name: "sixth" }),
      402,
      "PLAN_LIMIT_EXCEEDED",
    );
  });

  it("keeps decision-only integrations to a name and a status (CALLER_EXECUTED)", async () => {
    const o = await orgWithOwner(api);
    const res = await o.owner.post(`/orgs/${o.org}/mcp-servers`, { kind: "decision_only", name: "erp" });
    expect(res.body.mcp_server).toMatchObject({
      kind: "decision_only",
      url: null,
      credential: null,
      server_kid: null,
    });
    const id = res.body.mcp_server.id;
    await expectRefusedUnchanged(
      db.pool,
      () => o.owner.post(`/orgs/${o.org}/mcp-servers/${id}/discover`),
      422,
      "CALLER_EXECUTED",
    );
    await expectRefusedUnchanged(
      db.pool,
      () => o.owner.patch(`/orgs/${o.org}/mcp-servers/${id}`, { authorization: "Bearer x" }),
      422,
      "CALLER_EXECUTED",
    );
    await expectRefusedUnchanged(
      db.pool,
      () => o.owner.patch(`/orgs/${o.org}/mcp-servers/${id}`, { url: "https://127.0.0.1:9/mcp" }),
      422,
      "CALLER_EXECUTED",
    );
    await expectRefusedUnchanged(
      db.pool,
      () =>
        o.owner.post(`/orgs/${o.org}/mcp-servers`, {
          kind: "decision_only",
          name: "erp2",
          url: "https://127.0.0.1:9/mcp",
        }),
      400,
      "VALIDATION_FAILED",
    );
    expect(
      (await o.owner.patch(`/orgs/${o.org}/mcp-servers/${id}`, { name: "erp renamed", status: "disabled" }))
        .body.mcp_server,
    ).toMatchObject({ name: "erp renamed", status: "disabled" });
  });

  it("registers the server's identity document and KID, refusing another server's or another kind", async () => {
    const up = await startServiceAwareUpstream({ gateways: [], tls: ca, tools: {} });
    const o = await orgWithOwner(api);
    const s = await createServer(o, up.url);
    const id = newIdentity("principal", { organization_id: o.org, id: s.id });
    await expectRefusedUnchanged(
      db.pool,
      () => o.owner.patch(`/orgs/${o.org}/mcp-servers/${s.id}`, { server_identity: id.documents[0] }),
      422,
      "IDENTITY_WRONG_ACTOR_TYPE",
    );
    const other = newIdentity("mcp_server", { organization_id: o.org, id: "another-server" });
    await expectRefusedUnchanged(
      db.pool,
      () => o.owner.patch(`/orgs/${o.org}/mcp-servers/${s.id}`, { server_identity: other.documents[0] }),
      422,
      "IDENTITY_INVALID",
    );
    // The identity the server declares it signs with (api/src/mcp/service-aware.test.ts: the others).
    const res = await o.owner.patch(`/orgs/${o.org}/mcp-servers/${s.id}`, {
      server_identity: up.identity(o.org, s.id),
    });
    await up.close();
    expect(res.body.mcp_server.server_kid).toBe(up.kid);
    const stored = await db.pool.query("select kind, organization_id from identities where kid = $1", [
      up.kid,
    ]);
    expect(stored.rows[0]).toEqual({ kind: "mcp_server", organization_id: o.org });
    expect(
      (await o.owner.patch(`/orgs/${o.org}/mcp-servers/${s.id}`, { server_identity: null })).body.mcp_server
        .server_kid,
    ).toBeNull();
  });

  it("deletes a server with its tools, but not one whose tools have recorded actions (IN_USE)", async () => {
    const o = await orgWithOwner(api);
    const s = (await o.owner.post(`/orgs/${o.org}/mcp-servers`, { kind: "decision_only", name: "gone" })).body
      .mcp_server;
    const tool = (
      await o.owner.post(`/orgs/${o.org}/tools`, { mcp_server_id: s.id, exposed_name: "t1", action: "a.b" })
    ).body.tool;
    const used = (await o.owner.post(`/orgs/${o.org}/mcp-servers`, { kind: "decision_only", name: "used" }))
      .body.mcp_server;
    const usedTool = (
      await o.owner.post(`/orgs/${o.org}/tools`, {
        mcp_server_id: used.id,
        exposed_name: "t2",
        action: "a.b",
      })
    ).body.tool;
    const agent = (await o.owner.post(`/orgs/${o.org}/agents`, { name: "a" })).body.agent;
    await db.pool.query(
      `insert into protected_actions (organization_id, agent_id, tool_id, tool_name, action, execution, environment, status, arguments_digest, request_fingerprint)
       values ($1, $2, $3, 't2', 'a.b', 'caller', 'live', 'denied', 'sha256:x', 'f')`,
      [o.org, agent.id, usedTool.id],
    );
    await expectRefusedUnchanged(
      db.pool,
      () => o.owner.delete(`/orgs/${o.org}/mcp-servers/${used.id}`),
      409,
      "IN_USE",
    );
    expect((await o.owner.delete(`/orgs/${o.org}/mcp-servers/${s.id}`)).status).toBe(204);
    expect((await db.pool.query("select 1 from tools where id = $1", [tool.id])).rowCount).toBe(0);
    expect((await o.owner.get(`/orgs/${o.org}/mcp-servers/${s.id}`)).status).toBe(404);
  });
});

describe("discovery", () => {
  it("follows up to 20 pages and refuses a server that pages past 20 (DISCOVERY_TOO_LARGE)", async () => {
    const o = await orgWithOwner(api);
    const twenty = await createServer(o, (await upstream({ list: pagedTools(40, 2) })).url);
    const res = await o.owner.post(`/orgs/${o.org}/mcp-servers/${twenty.id}/discover`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ pages: 20 });
    expect(res.body.tools).toHaveLength(40);
    const endless = await upstream({ list: pagedTools(1000, 2) });
    const s = await createServer(o, endless.url);
    await expectRefusedUnchanged(
      db.pool,
      () => o.owner.post(`/orgs/${o.org}/mcp-servers/${s.id}/discover`),
      502,
      "DISCOVERY_TOO_LARGE",
    );
    expect(endless.listCalls).toBe(20);
  });

  it("refuses more than 2000 tools and more than 8 MiB of answers (DISCOVERY_TOO_LARGE)", async () => {
    const o = await orgWithOwner(api);
    const many = await createServer(o, (await upstream({ list: pagedTools(2001, 1000) })).url);
    await expectRefusedUnchanged(
      db.pool,
      () => o.owner.post(`/orgs/${o.org}/mcp-servers/${many.id}/discover`),
      502,
      "DISCOVERY_TOO_LARGE",
    );
    // 200 tools with ~50 KiB schemas each: about 10 MiB over 10 pages
    const bulky = (i: number) => ({
      name: `big_${i}`,
      inputSchema: { type: "object", description: "x".repeat(50_000), properties: {} },
    });
    const big = await createServer(o, (await upstream({ list: pagedTools(200, 20, bulky) })).url);
    await expectRefusedUnchanged(
      db.pool,
      () => o.owner.post(`/orgs/${o.org}/mcp-servers/${big.id}/discover`),
      502,
      "DISCOVERY_TOO_LARGE",
    );
    // The same pages as SSE streams: the stream is cut at the budget and the discovery ends at once
    // (the SDK only reports a broken stream; without the cut it waited for the 30 s timeout).
    const streamed = await createServer(
      o,
      (await upstream({ list: pagedTools(200, 20, bulky), sse: true })).url,
    );
    await expectRefusedUnchanged(
      db.pool,
      () => o.owner.post(`/orgs/${o.org}/mcp-servers/${streamed.id}/discover`),
      502,
      "DISCOVERY_TOO_LARGE",
    );
  });

  it("reports tools whose schema is not an MCP object schema without hiding the others", async () => {
    const o = await orgWithOwner(api);
    const up = await upstream({
      list: () => ({
        tools: [
          simpleTool("good"),
          { name: "bad", inputSchema: { type: "string" } },
          { name: "huge", inputSchema: { type: "object", description: "y".repeat(70_000) } },
        ],
      }),
    });
    const s = await createServer(o, up.url);
    const res = await o.owner.post(`/orgs/${o.org}/mcp-servers/${s.id}/discover`);
    expect(
      res.body.tools.map((t: { name: string; schema_problem: string | null }) => [t.name, t.schema_problem]),
    ).toEqual([
      ["good", null],
      ["bad", "not_object_schema"],
      ["huge", "too_large"],
    ]);
  });

  it("answers UPSTREAM_UNREACHABLE, UPSTREAM_ERROR for a refused credential, and UPSTREAM_CREDENTIAL_INVALID for an unreadable one", async () => {
    const o = await orgWithOwner(api);
    const closed = await upstream({ list: pagedTools(1, 1) });
    await closed.close();
    const s1 = await createServer(o, closed.url);
    await expectRefusedUnchanged(
      db.pool,
      () => o.owner.post(`/orgs/${o.org}/mcp-servers/${s1.id}/discover`),
      502,
      "UPSTREAM_UNREACHABLE",
    );
    const guarded = await upstream({ list: pagedTools(1, 1), authorization: "Bearer right" });
    const s2 = await createServer(o, guarded.url, { authorization: "Bearer wrong" });
    const res = await expectRefusedUnchanged(
      db.pool,
      () => o.owner.post(`/orgs/${o.org}/mcp-servers/${s2.id}/discover`),
      502,
      "UPSTREAM_ERROR",
    );
    expect(res.body.error.details.http_status).toBe(401);
    await db.pool.query("update mcp_servers set credential_encrypted = $2 where id = $1", [
      s2.id,
      randomBytes(60),
    ]);
    const bad = await expectRefusedUnchanged(
      db.pool,
      () => o.owner.post(`/orgs/${o.org}/mcp-servers/${s2.id}/discover`),
      409,
      "UPSTREAM_CREDENTIAL_INVALID",
    );
    expect(bad.body.error.details.reason).toBe("undecryptable");
  });

  it("answers UPSTREAM_TIMEOUT when the server does not finish in time", async () => {
    const quick = await startCloudApi(db, {
      defaultPlan: "startup",
      extra: { mcp: { credentialKey, allowLoopbackUrls: true, ca: [ca.caPem], discoveryTimeoutMs: 400 } },
    });
    try {
      const owner = quick.browser();
      await owner.signUpAndIn(quick.smtp);
      const org = (await owner.post("/orgs", { name: "Quick" })).body.organization.id;
      const slow = await upstream({ list: pagedTools(1, 1), delayMs: 2000 });
      const s = (await owner.post(`/orgs/${org}/mcp-servers`, { kind: "mcp", name: "slow", url: slow.url }))
        .body.mcp_server;
      await expectRefusedUnchanged(
        db.pool,
        () => owner.post(`/orgs/${org}/mcp-servers/${s.id}/discover`),
        504,
        "UPSTREAM_TIMEOUT",
      );
    } finally {
      await quick.close();
    }
  });

  it("runs 2 discoveries at a time per organization and 8 overall (429 DISCOVERY_BUSY)", async () => {
    const slow = await upstream({ list: pagedTools(1, 1), delayMs: 1500 });
    const o = await orgWithOwner(api);
    const s = await createServer(o, slow.url);
    const three = await Promise.all(
      [0, 1, 2].map(() => o.owner.post(`/orgs/${o.org}/mcp-servers/${s.id}/discover`)),
    );
    expect(three.map((r) => r.status).sort()).toEqual([200, 200, 429]);
    const busy = three.find((r) => r.status === 429)!;
    expect(busy.body.error.code).toBe("DISCOVERY_BUSY");
    expect(busy.headers.get("retry-after")).toBe("5");
    // five organizations, two each: ten at once, eight run
    const orgs = await Promise.all([0, 1, 2, 3, 4].map(() => orgWithOwner(api)));
    const ids = await Promise.all(orgs.map((x) => createServer(x, slow.url)));
    const ten = await Promise.all(
      orgs.flatMap((x, i) =>
        [0, 1].map(() => x.owner.post(`/orgs/${x.org}/mcp-servers/${ids[i].id}/discover`)),
      ),
    );
    expect(ten.filter((r) => r.status === 200)).toHaveLength(8);
    expect(ten.filter((r) => r.status === 429 && r.body.error.code === "DISCOVERY_BUSY")).toHaveLength(2);
  });

  it("is for Writers and tools:write keys; a read key gets 403 with the scope it needs", async () => {
    const o = await orgWithOwner(api);
    const s = await createServer(o, (await upstream({ list: pagedTools(1, 1) })).url);
    const dev = await addMember(api, o, "developer");
    expect((await dev.b.post(`/orgs/${o.org}/mcp-servers/${s.id}/discover`)).status).toBe(200);
    const writer = await managementKey(api, o, ["tools:write"]);
    expect((await writer("POST", `/orgs/${o.org}/mcp-servers/${s.id}/discover`)).status).toBe(200);
    const reader = await managementKey(api, o, ["read"]);
    const res = await expectRefusedUnchanged(
      db.pool,
      () => reader("POST", `/orgs/${o.org}/mcp-servers/${s.id}/discover`),
      403,
      "FORBIDDEN",
    );
    expect(res.body.error.details.required_scope).toBe("tools:write");
  });
});
