/**
 * The Cloud API's check of a service-aware MCP server's declared identity
 * (docs/evidence.md section 11, "Declaring"), through the real server against
 * real MCP servers built with the SDK: the service-aware test upstream (the
 * SDK's McpServer with the author's helper, which declares its KID at
 * initialize) and plain SDK servers. Registering an identity and changing
 * the address of a server with one ask the server what it declares; so does
 * discovery. Every refusal answers its code and changes nothing.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeSigner } from "../../../protocol/src/evidence/index.js";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { startCloudApi, type CloudApi } from "../../../test/fixtures/cloud-api.js";
import {
  configurationSnapshot,
  expectRefusedUnchanged,
  orgWithOwner,
  type OrgWithOwner,
} from "../../../test/fixtures/configuration.js";
import { createTestCa, type TestCa } from "../../../test/fixtures/https-receiver.js";
import { longIdentityLog, newIdentity } from "../../../test/fixtures/identities.js";
import { simpleTool, startMcpServer, type McpTestServer } from "../../../test/fixtures/mcp-server.js";
import {
  startServiceAwareUpstream,
  type ServiceAwareUpstream,
} from "../../../test/fixtures/service-aware-upstream.js";

let db: TestDatabase;
let api: CloudApi;
let ca: TestCa;
const closing: (McpTestServer | ServiceAwareUpstream)[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  ca = createTestCa();
  api = await startCloudApi(db, {
    defaultPlan: "startup",
    extra: { mcp: { credentialKey: randomBytes(32), allowLoopbackUrls: true, ca: [ca.caPem] } },
  });
});
afterAll(async () => {
  for (const s of closing) await s.close();
  await api?.close();
  await db?.drop();
  ca?.dispose();
});

const echo = () => ({ content: [{ type: "text" as const, text: "ok" }] });

async function serviceAwareUpstream(seed?: Uint8Array, hold?: () => Promise<void>) {
  const up = await startServiceAwareUpstream({
    gateways: [],
    tls: ca,
    seed,
    hold,
    tools: { refund: { run: echo } },
  });
  closing.push(up);
  return up;
}

async function plainUpstream(experimental?: Record<string, object>) {
  const up = await startMcpServer(ca, { list: () => ({ tools: [simpleTool("refund")] }), experimental });
  closing.push(up);
  return up;
}

async function createServer(o: OrgWithOwner, url: string): Promise<string> {
  const res = await o.owner.post(`/orgs/${o.org}/mcp-servers`, {
    kind: "mcp",
    name: `srv-${randomBytes(3).toString("hex")}`,
    url,
  });
  expect(res.status).toBe(201);
  return res.body.mcp_server.id;
}

const patch = (o: OrgWithOwner, id: string, body: Record<string, unknown>) =>
  o.owner.patch(`/orgs/${o.org}/mcp-servers/${id}`, body);
const discover = (o: OrgWithOwner, id: string) =>
  o.owner.post(`/orgs/${o.org}/mcp-servers/${id}/discover`, {});

/** A service-aware server registered with its own identity through the route. */
async function registered(o: OrgWithOwner, up: ServiceAwareUpstream) {
  const id = await createServer(o, up.url);
  const res = await patch(o, id, { server_identity: up.identity(o.org, id) });
  expect(res.status).toBe(200);
  return id;
}

describe("registering a server identity asks the server what it declares", () => {
  it("accepts the identity a service-aware server declares it signs with; discovery then lists its tools", async () => {
    const up = await serviceAwareUpstream();
    const o = await orgWithOwner(api);
    const id = await createServer(o, up.url);
    const res = await patch(o, id, { server_identity: up.identity(o.org, id) });
    expect(res.status).toBe(200);
    expect(res.body.mcp_server.server_kid).toBe(up.kid);
    const found = await discover(o, id);
    expect(found.status).toBe(200);
    expect(found.body.tools.map((t: { name: string }) => t.name)).toEqual(["refund"]);
    // A tool created from discovery takes its schema from the server.
    const tool = await o.owner.post(`/orgs/${o.org}/tools`, {
      mcp_server_id: id,
      exposed_name: "refund",
      action: "payments.refund",
    });
    expect(tool.status).toBe(201);
  });

  it("UPSTREAM_IDENTITY_UNKNOWN: the document is of another key than the one the server declares", async () => {
    const up = await serviceAwareUpstream();
    const o = await orgWithOwner(api);
    const id = await createServer(o, up.url);
    const other = newIdentity("mcp_server", { organization_id: o.org, id });
    const res = await expectRefusedUnchanged(
      db.pool,
      () => patch(o, id, { server_identity: other.documents[0] }),
      422,
      "UPSTREAM_IDENTITY_UNKNOWN",
    );
    expect(res.body.error.details).toEqual({ declared_kid: up.kid, registered_kid: other.kid });
  });

  it("UPSTREAM_REFUSED: the server declares nothing (it would take no evidence), or a declaration this version does not read", async () => {
    const o = await orgWithOwner(api);
    const plain = await plainUpstream();
    const id = await createServer(o, plain.url);
    const mine = newIdentity("mcp_server", { organization_id: o.org, id });
    const res = await expectRefusedUnchanged(
      db.pool,
      () => patch(o, id, { server_identity: mine.documents[0] }),
      422,
      "UPSTREAM_REFUSED",
    );
    expect(res.body.error.details).toEqual({ reason: "not_service_aware", registered_kid: mine.kid });

    const odd = await plainUpstream({
      "service/evidence": { service_evidence: "9.9", server_kid: mine.kid },
    });
    const id2 = await createServer(o, odd.url);
    const res2 = await expectRefusedUnchanged(
      db.pool,
      () =>
        patch(o, id2, {
          server_identity: newIdentity("mcp_server", { organization_id: o.org, id: id2 }).documents[0],
        }),
      422,
      "UPSTREAM_REFUSED",
    );
    expect(res2.body.error.details).toEqual({ reason: "declaration_invalid" });
    // Without an identity the same servers are ordinary ones: their tools are discovered.
    expect((await discover(o, id)).status).toBe(200);
  });

  it("UPSTREAM_IDENTITY_TOO_LARGE: the key's stored identity log is over 64 KiB", async () => {
    const seed = randomBytes(32);
    const up = await serviceAwareUpstream(seed);
    const o = await orgWithOwner(api);
    const first = await registered(o, up);
    // The identity lived long: its log grew past what the Gateway sends (64 KiB).
    const log = longIdentityLog(
      nodeSigner(seed),
      "mcp_server",
      { organization_id: o.org, id: first, name: "x".repeat(200) },
      150,
    );
    await db.pool.query("update identities set document = $2 where kid = $1", [up.kid, JSON.stringify(log)]);
    // The same identity for a second server of the organization: refused, nothing stored.
    const second = await createServer(o, up.url);
    await expectRefusedUnchanged(
      db.pool,
      () => patch(o, second, { server_identity: up.identity(o.org, second) }),
      422,
      "UPSTREAM_IDENTITY_TOO_LARGE",
    );
    // And the first server's discovery and a new address for it say the same.
    await expectRefusedUnchanged(db.pool, () => discover(o, first), 422, "UPSTREAM_IDENTITY_TOO_LARGE");
    await expectRefusedUnchanged(
      db.pool,
      () => patch(o, first, { url: up.url }),
      422,
      "UPSTREAM_IDENTITY_TOO_LARGE",
    );
  });

  it("a new address for a server with an identity must serve that identity; removing the identity asks nothing", async () => {
    const up = await serviceAwareUpstream();
    const elsewhere = await serviceAwareUpstream();
    const plain = await plainUpstream();
    const o = await orgWithOwner(api);
    const id = await registered(o, up);
    await expectRefusedUnchanged(
      db.pool,
      () => patch(o, id, { url: elsewhere.url }),
      422,
      "UPSTREAM_IDENTITY_UNKNOWN",
    );
    await expectRefusedUnchanged(db.pool, () => patch(o, id, { url: plain.url }), 422, "UPSTREAM_REFUSED");
    const unreachable = await expectRefusedUnchanged(
      db.pool,
      () => patch(o, id, { url: "https://127.0.0.1:9/mcp" }),
      502,
      "UPSTREAM_UNREACHABLE",
    );
    expect(unreachable.body.error.message).not.toContain("undefined");
    // Both at once: the plain server's address without the identity is an ordinary server.
    const res = await patch(o, id, { url: plain.url, server_identity: null });
    expect(res.status).toBe(200);
    expect(res.body.mcp_server).toMatchObject({ url: plain.url, server_kid: null });
  });
});

describe("a change made while the server was asked", () => {
  it("CONFLICT (CHANGED_MEANWHILE): the address changed while the declaration was read; the identity is not registered", async () => {
    // The upstream holds its answers until the test lets them go.
    let asked!: () => void;
    const reached = new Promise<void>((r) => (asked = r));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const up = await serviceAwareUpstream(undefined, async () => {
      asked();
      await released;
    });
    const plain = await plainUpstream();
    const o = await orgWithOwner(api);
    const id = await createServer(o, up.url);
    const registering = patch(o, id, { server_identity: up.identity(o.org, id) });
    await reached;
    // Another writer points the server elsewhere while the first one waits for the declaration.
    const moved = await patch(o, id, { url: plain.url });
    expect(moved.status).toBe(200);
    const before = await configurationSnapshot(db.pool);
    release();
    const res = await registering;
    expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 409, code: "CONFLICT" });
    expect(res.body.error.details).toEqual({ reason: "CHANGED_MEANWHILE" });
    expect(await configurationSnapshot(db.pool)).toEqual(before);
    const now = await o.owner.get(`/orgs/${o.org}/mcp-servers/${id}`);
    expect(now.body.mcp_server).toMatchObject({ url: plain.url, server_kid: null });
    const { rows } = await db.pool.query("select 1 from identities where kid = $1", [up.kid]);
    expect(rows).toEqual([]);
    // Asked again, the server at the address it now has declares nothing: refused as such.
    await expectRefusedUnchanged(
      db.pool,
      () => patch(o, id, { server_identity: up.identity(o.org, id) }),
      422,
      "UPSTREAM_REFUSED",
    );
  });
});

describe("discovery compares what the server declares with its registered identity", () => {
  it("UPSTREAM_IDENTITY_UNKNOWN: a service-aware server with no identity registered; no tool is created from it", async () => {
    const up = await serviceAwareUpstream();
    const o = await orgWithOwner(api);
    const id = await createServer(o, up.url);
    const res = await expectRefusedUnchanged(
      db.pool,
      () => discover(o, id),
      422,
      "UPSTREAM_IDENTITY_UNKNOWN",
    );
    expect(res.body.error.details).toEqual({ declared_kid: up.kid, registered_kid: null });
    await expectRefusedUnchanged(
      db.pool,
      () =>
        o.owner.post(`/orgs/${o.org}/tools`, {
          mcp_server_id: id,
          exposed_name: "refund",
          action: "payments.refund",
        }),
      422,
      "UPSTREAM_IDENTITY_UNKNOWN",
    );
  });

  it("UPSTREAM_REFUSED and UPSTREAM_IDENTITY_UNKNOWN: the server at the address stopped declaring, or now declares another KID", async () => {
    const up = await serviceAwareUpstream();
    const replacement = await serviceAwareUpstream();
    const plain = await plainUpstream();
    const o = await orgWithOwner(api);
    const id = await registered(o, up);
    // What is served at the registered address changed without Countersign being told.
    await db.pool.query("update mcp_servers set url = $2 where id = $1", [id, plain.url]);
    await expectRefusedUnchanged(db.pool, () => discover(o, id), 422, "UPSTREAM_REFUSED");
    await db.pool.query("update mcp_servers set url = $2 where id = $1", [id, replacement.url]);
    const res = await expectRefusedUnchanged(
      db.pool,
      () => discover(o, id),
      422,
      "UPSTREAM_IDENTITY_UNKNOWN",
    );
    expect(res.body.error.details).toEqual({ declared_kid: replacement.kid, registered_kid: up.kid });
    // Its own server again: discovered.
    await db.pool.query("update mcp_servers set url = $2 where id = $1", [id, up.url]);
    expect((await discover(o, id)).status).toBe(200);
  });
});
