/**
 * The MCP server URL rule of the Cloud API is the Gateway's (core/src/net/upstream-url.ts), through
 * the real server: with COUNTERSIGN_ALLOW_LOOPBACK_URLS on (`make run`, tests) a person registers
 * their own server at `http://127.0.0.1:<port>/mcp` and discovery lists its tools (against
 * `@modelcontextprotocol/server-everything`, the MCP project's reference server); with it off the
 * production rule of SPEC 6.4 stands (https only, public addresses: URL_NOT_ALLOWED, nothing
 * stored). Plain http is loopback only even with the switch on, and the upstream CA setting is what
 * discovery trusts for an https server on this machine with a local CA. The tool made from that
 * discovery is then called through the Gateway's /mcp (a real Gateway, the MCP SDK client): the URL
 * the Cloud API stored is the one the Gateway reaches.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { startCloudApi, type CloudApi } from "../../../test/fixtures/cloud-api.js";
import {
  expectRefusedUnchanged,
  orgWithOwner,
  type OrgWithOwner,
} from "../../../test/fixtures/configuration.js";
import {
  startEverythingUpstream,
  type EverythingUpstream,
} from "../../../test/fixtures/everything-upstream.js";
import { createTestCa, type TestCa } from "../../../test/fixtures/https-receiver.js";
import { simpleTool, startMcpServer, type McpTestServer } from "../../../test/fixtures/mcp-server.js";
import { createAuthorizationWorld } from "../../../test/fixtures/authorization.js";
import { mcpAgent, startTestGateway } from "../../../test/gateway/harness.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

let db: TestDatabase;
let loopbackOn: CloudApi;
let loopbackOff: CloudApi;
let everything: EverythingUpstream;
let ca: TestCa;
let httpsServer: McpTestServer;
const credentialKey = randomBytes(32);

beforeAll(async () => {
  db = await createTestDatabase();
  ca = createTestCa();
  loopbackOn = await startCloudApi(db, {
    defaultPlan: "startup",
    extra: { mcp: { credentialKey, allowLoopbackUrls: true, ca: [ca.caPem] } },
  });
  loopbackOff = await startCloudApi(db, {
    defaultPlan: "startup",
    extra: { mcp: { credentialKey, allowLoopbackUrls: false } },
  });
  everything = await startEverythingUpstream();
  httpsServer = await startMcpServer(ca, { list: () => ({ tools: [simpleTool("local_ca_tool")] }) });
});
afterAll(async () => {
  await everything?.close();
  await httpsServer?.close();
  await loopbackOn?.close();
  await loopbackOff?.close();
  await db?.drop();
  ca?.dispose();
});

const register = (o: OrgWithOwner, url: string) =>
  o.owner.post(`/orgs/${o.org}/mcp-servers`, {
    kind: "mcp",
    name: `srv-${randomBytes(3).toString("hex")}`,
    url,
  });

describe("an MCP server on this machine", () => {
  it("loopback on: http://127.0.0.1:<port>/mcp is registered and discovery lists the server's tools", async () => {
    const o = await orgWithOwner(loopbackOn);
    expect(everything.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const created = await register(o, everything.url);
    expect(created.status).toBe(201);
    expect(created.body.mcp_server).toMatchObject({ kind: "mcp", url: everything.url, status: "active" });
    const found = await o.owner.post(`/orgs/${o.org}/mcp-servers/${created.body.mcp_server.id}/discover`);
    expect(found.status).toBe(200);
    const names = found.body.tools.map((t: { name: string }) => t.name);
    expect(names).toContain("echo");
    expect(everything.sessionIds.length).toBeGreaterThan(0);

    // localhost and [::1] name loopback too; a changed URL follows the same rule.
    const patched = await o.owner.patch(`/orgs/${o.org}/mcp-servers/${created.body.mcp_server.id}`, {
      url: everything.url.replace("127.0.0.1", "localhost"),
    });
    expect(patched.status).toBe(200);
  });

  it("loopback on: plain http to anything but loopback is still refused (not_https), nothing stored", async () => {
    const o = await orgWithOwner(loopbackOn);
    for (const url of [
      "http://example.com/mcp",
      "http://10.0.0.8:8080/mcp",
      "http://user:pw@127.0.0.1:9/mcp",
    ]) {
      const res = await expectRefusedUnchanged(db.pool, () => register(o, url), 422, "URL_NOT_ALLOWED");
      expect(res.body.error.details.reason, url).toBe(url.includes("@") ? "has_userinfo" : "not_https");
    }
  });

  it("loopback off (production): the same URL is refused URL_NOT_ALLOWED and nothing is stored", async () => {
    const o = await orgWithOwner(loopbackOff);
    for (const [url, reason] of [
      [everything.url, "not_https"],
      [everything.url.replace("127.0.0.1", "localhost"), "not_https"],
      [httpsServer.url, "loopback_address"],
    ] as const) {
      const res = await expectRefusedUnchanged(db.pool, () => register(o, url), 422, "URL_NOT_ALLOWED");
      expect(res.body.error.details.reason, url).toBe(reason);
      expect(res.body.error.message).toMatch(/^the MCP server URL is not allowed: /);
    }
  });

  it("https on this machine with a local CA: discovery trusts the upstream CA setting, and only it", async () => {
    const o = await orgWithOwner(loopbackOn);
    const created = await register(o, httpsServer.url);
    expect(created.status).toBe(201);
    const found = await o.owner.post(`/orgs/${o.org}/mcp-servers/${created.body.mcp_server.id}/discover`);
    expect(found.status).toBe(200);
    expect(found.body.tools.map((t: { name: string }) => t.name)).toEqual(["local_ca_tool"]);

    // A Cloud API without that CA does not trust the server's certificate.
    const untrusting = await startCloudApi(db, {
      defaultPlan: "startup",
      extra: { mcp: { credentialKey, allowLoopbackUrls: true } },
    });
    try {
      const p = await orgWithOwner(untrusting);
      const other = await register(p, httpsServer.url);
      expect(other.status).toBe(201);
      const refused = await p.owner.post(`/orgs/${p.org}/mcp-servers/${other.body.mcp_server.id}/discover`);
      expect(refused.status).toBe(502);
      expect(refused.body.error.code).toBe("UPSTREAM_UNREACHABLE");
    } finally {
      await untrusting.close();
    }
  });

  it(
    "loopback on: the tool discovered there is called through the Gateway's /mcp",
    { timeout: 60_000 },
    async () => {
      // An organization ready for decisions (principal, agent with a delegation of payments.*, a policy
      // allowing by default, a gateway key), whose owner is signed in to the Cloud API.
      const world = await createAuthorizationWorld(db.pool, loopbackOn.keyHashSecret, {
        document: { revision: 1, default_effect: "allow", rules: [] },
      });
      const owner = loopbackOn.browser();
      const { userId } = await owner.signUpAndIn(loopbackOn.smtp);
      await db.pool.query(
        "insert into memberships (organization_id, user_id, role) values ($1, $2, 'owner')",
        [world.organizationId, userId],
      );
      const o = { owner, org: world.organizationId, ownerId: userId };
      const server = (await register(o, everything.url)).body.mcp_server;
      expect((await owner.post(`/orgs/${o.org}/mcp-servers/${server.id}/discover`)).status).toBe(200);
      const draft = await owner.post(`/orgs/${o.org}/tools`, {
        mcp_server_id: server.id,
        exposed_name: "local_echo",
        upstream_name: "echo",
        action: "payments.echo",
        enabled: false,
      });
      expect(draft.status, JSON.stringify(draft.body)).toBe(201);
      const tool = draft.body.tool;
      expect(
        (
          await owner.post(`/orgs/${o.org}/tools/${tool.id}/authorize`, {
            binding_digest: tool.binding.digest,
          })
        ).status,
      ).toBe(200);
      expect((await owner.patch(`/orgs/${o.org}/tools/${tool.id}`, { enabled: true })).status).toBe(200);

      const gw = await startTestGateway(db, {
        keyHashSecret: loopbackOn.keyHashSecret,
        credentialKey,
        defaultPlan: "enterprise",
      });
      try {
        const agent = await mcpAgent(gw.gateway.url, world.key);
        try {
          const result = (await agent.callTool({
            name: "local_echo",
            arguments: { message: "from my own server" },
          })) as CallToolResult;
          expect(result.isError ?? false, JSON.stringify(result)).toBe(false);
          expect(JSON.stringify(result.content)).toContain("from my own server");
        } finally {
          await agent.close();
        }
      } finally {
        await gw.close();
      }
    },
  );
});
