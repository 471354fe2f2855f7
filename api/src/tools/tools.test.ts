/**
 * Tools through the real server (SPEC 2.3, 4.4, 8.6): a developer's tool is
 * a disabled draft whose schema is discovered from a real MCP server;
 * enabling or changing what an enabled tool means needs an admin signed in;
 * a changed binding needs re-authorization, which the decision pipeline sees
 * (TOOL_REAUTHORIZATION_REQUIRED) until POST .../authorize; refusals change nothing.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDecisionContext } from "@countersign/core/decision";
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
import { simpleTool, startMcpServer, type McpTestServer } from "../../../test/fixtures/mcp-server.js";
import { createDecisionOnlyTool } from "../../../test/fixtures/authorization.js";

let db: TestDatabase;
let api: CloudApi;
let ca: TestCa;
let up: McpTestServer;

beforeAll(async () => {
  db = await createTestDatabase();
  ca = createTestCa();
  api = await startCloudApi(db, {
    defaultPlan: "startup",
    extra: { mcp: { credentialKey: randomBytes(32), allowLoopbackUrls: true, ca: [ca.caPem] } },
  });
  up = await startMcpServer(ca, {
    list: () => ({
      tools: [
        simpleTool("send_payment"),
        { name: "weird", inputSchema: { type: "array" } },
        {
          name: "refund",
          description: "refunds",
          inputSchema: { type: "object", properties: { id: { type: "string" } } },
        },
      ],
    }),
  });
});
afterAll(async () => {
  await up?.close();
  await api?.close();
  await db?.drop();
  ca?.dispose();
});

async function withServer(o: OrgWithOwner) {
  const res = await o.owner.post(`/orgs/${o.org}/mcp-servers`, {
    kind: "mcp",
    name: "payments",
    url: up.url,
  });
  return res.body.mcp_server.id as string;
}

const mapping = { amount_path: "amount", currency_path: "currency" };

describe("tools", () => {
  it("makes a developer's tool a disabled draft with the upstream schema; an admin enables it, authorizing its binding", async () => {
    const o = await orgWithOwner(api);
    const server = await withServer(o);
    const dev = await addMember(api, o, "developer");
    const res = await dev.b.post(`/orgs/${o.org}/tools`, {
      mcp_server_id: server,
      exposed_name: "pay",
      upstream_name: "send_payment",
      action: "payments.send",
      amount_mapping: mapping,
    });
    expect(res.status).toBe(201);
    const tool = res.body.tool;
    expect(tool).toMatchObject({
      exposed_name: "pay",
      upstream_name: "send_payment",
      action: "payments.send",
      enabled: false,
      description: "the send_payment tool",
      authorization: { state: "unauthorized" },
    });
    expect(tool.input_schema).toEqual(simpleTool("send_payment").inputSchema);
    expect(tool.binding).toMatchObject({
      mcp_server_id: server,
      url: up.url,
      credential_version: 0,
      upstream_name: "send_payment",
    });
    await expectRefusedUnchanged(
      db.pool,
      () => dev.b.patch(`/orgs/${o.org}/tools/${tool.id}`, { enabled: true }),
      403,
      "ADMIN_REQUIRED",
    );
    await expectRefusedUnchanged(
      db.pool,
      () =>
        dev.b.post(`/orgs/${o.org}/tools`, {
          mcp_server_id: server,
          exposed_name: "pay2",
          upstream_name: "refund",
          action: "payments.refund",
          enabled: true,
        }),
      403,
      "ADMIN_REQUIRED",
    );
    const key = await managementKey(api, o, ["tools:write"]);
    await expectRefusedUnchanged(
      db.pool,
      () => key("PATCH", `/orgs/${o.org}/tools/${tool.id}`, { enabled: true }),
      403,
      "ADMIN_REQUIRED",
    );
    expect(
      (
        await key("POST", `/orgs/${o.org}/tools`, {
          mcp_server_id: server,
          exposed_name: "by key",
          upstream_name: "refund",
          action: "payments.refund",
        })
      ).body.tool.enabled,
    ).toBe(false);
    const enabled = await o.owner.patch(`/orgs/${o.org}/tools/${tool.id}`, { enabled: true });
    expect(enabled.body.tool).toMatchObject({
      enabled: true,
      authorization: { state: "authorized", binding_digest: tool.binding.digest, authorized_by: o.ownerId },
    });
    const audit = await db.pool.query("select action from audit_log where target_id = $1 order by id", [
      tool.id,
    ]);
    expect(audit.rows.map((r) => r.action)).toEqual(["tool.created", "tool.updated", "tool.enabled"]);
  });

  it("refuses unknown upstream tools, bad schemas, unknown servers, taken and too long names, and changes nothing", async () => {
    const o = await orgWithOwner(api);
    const server = await withServer(o);
    const post = (body: Record<string, unknown>) =>
      o.owner.post(`/orgs/${o.org}/tools`, {
        mcp_server_id: server,
        exposed_name: "t",
        action: "a.b",
        ...body,
      });
    await expectRefusedUnchanged(
      db.pool,
      () => post({ upstream_name: "missing" }),
      422,
      "UPSTREAM_TOOL_NOT_FOUND",
    );
    const weird = await expectRefusedUnchanged(
      db.pool,
      () => post({ upstream_name: "weird" }),
      422,
      "UPSTREAM_SCHEMA_INVALID",
    );
    expect(weird.body.error.details.reason).toBe("not_object_schema");
    await expectRefusedUnchanged(
      db.pool,
      () => post({ upstream_name: "refund", input_schema: { type: "string" } }),
      422,
      "UPSTREAM_SCHEMA_INVALID",
    );
    const big = await expectRefusedUnchanged(
      db.pool,
      () =>
        post({ upstream_name: "refund", input_schema: { type: "object", description: "z".repeat(66_000) } }),
      422,
      "UPSTREAM_SCHEMA_INVALID",
    );
    expect(big.body.error.details.reason).toBe("too_large");
    await expectRefusedUnchanged(
      db.pool,
      () => post({ mcp_server_id: "00000000-0000-4000-8000-000000000000" }),
      422,
      "MCP_SERVER_NOT_FOUND",
    );
    await expectRefusedUnchanged(
      db.pool,
      () => post({ exposed_name: "x".repeat(129), upstream_name: "refund" }),
      400,
      "VALIDATION_FAILED",
    );
    await expectRefusedUnchanged(
      db.pool,
      () => post({ upstream_name: "refund", amount_mapping: { amount_path: "a" } }),
      400,
      "VALIDATION_FAILED",
    );
    expect((await post({ upstream_name: "refund" })).status).toBe(201);
    await expectRefusedUnchanged(db.pool, () => post({ upstream_name: "send_payment" }), 409, "NAME_TAKEN");
  });

  it("creates decision-only tools without discovery, 128-character names included, up to the Developer plan's 50", async () => {
    const o = await orgWithOwner(api, { plan: "developer", db: db.pool });
    const erp = (await o.owner.post(`/orgs/${o.org}/mcp-servers`, { kind: "decision_only", name: "erp" }))
      .body.mcp_server.id;
    const first = await o.owner.post(`/orgs/${o.org}/tools`, {
      mcp_server_id: erp,
      exposed_name: "n".repeat(128),
      action: "erp.invoice",
    });
    expect(first.body.tool).toMatchObject({
      upstream_name: "n".repeat(128),
      input_schema: { type: "object" },
      enabled: false,
    });
    for (let i = 1; i < 50; i++)
      expect(
        (
          await o.owner.post(`/orgs/${o.org}/tools`, {
            mcp_server_id: erp,
            exposed_name: `t${i}`,
            action: "erp.x",
          })
        ).status,
      ).toBe(201);
    await expectRefusedUnchanged(
      db.pool,
      () =>
        o.owner.post(`/orgs/${o.org}/tools`, { mcp_server_id: erp, exposed_name: "t50", action: "erp.x" }),
      402,
      "PLAN_LIMIT_EXCEEDED",
    );
  });

  it("needs re-authorization after what an enabled tool is bound to changes; the decision pipeline sees it until authorized", async () => {
    const o = await orgWithOwner(api);
    const server = await withServer(o);
    const agent = (await o.owner.post(`/orgs/${o.org}/agents`, { name: "payer" })).body.agent.id;
    const tool = (
      await o.owner.post(`/orgs/${o.org}/tools`, {
        mcp_server_id: server,
        exposed_name: "pay",
        upstream_name: "send_payment",
        action: "payments.send",
        enabled: true,
      })
    ).body.tool;
    expect(tool.authorization.state).toBe("authorized");
    const pipelineSees = async () =>
      (await loadDecisionContext(db.pool, {
        organizationId: o.org,
        agentId: agent,
        tool: "pay",
        defaultPlan: "startup",
      }))!.tool!.bindingAuthorized;
    expect(await pipelineSees()).toBe(true);

    // a developer may not change what an enabled tool means, nor what it is bound to
    const dev = await addMember(api, o, "developer");
    await expectRefusedUnchanged(
      db.pool,
      () => dev.b.patch(`/orgs/${o.org}/tools/${tool.id}`, { amount_mapping: mapping }),
      403,
      "ADMIN_REQUIRED",
    );
    await expectRefusedUnchanged(
      db.pool,
      () => dev.b.patch(`/orgs/${o.org}/tools/${tool.id}`, { action: "payments.other" }),
      403,
      "ADMIN_REQUIRED",
    );
    await expectRefusedUnchanged(
      db.pool,
      () => dev.b.patch(`/orgs/${o.org}/mcp-servers/${server}`, { authorization: "Bearer new" }),
      403,
      "ADMIN_REQUIRED",
    );
    // but may rename it
    expect(
      (await dev.b.patch(`/orgs/${o.org}/tools/${tool.id}`, { exposed_name: "pay", description: "pays" }))
        .status,
    ).toBe(200);

    // an admin rotates the server's credential: the tool now needs re-authorization
    const rotated = await o.owner.patch(`/orgs/${o.org}/mcp-servers/${server}`, {
      authorization: "Bearer new",
    });
    expect(rotated.status).toBe(200);
    const after = (await o.owner.get(`/orgs/${o.org}/tools/${tool.id}`)).body.tool;
    expect(after.authorization.state).toBe("reauthorization_required");
    expect(after.binding.credential_version).toBe(1);
    expect(await pipelineSees()).toBe(false);

    // disabled and enabled again, it is not silently re-authorized
    await o.owner.patch(`/orgs/${o.org}/tools/${tool.id}`, { enabled: false });
    const again = await expectRefusedUnchanged(
      db.pool,
      () => o.owner.patch(`/orgs/${o.org}/tools/${tool.id}`, { enabled: true }),
      409,
      "BINDING_CHANGED",
    );
    expect(again.body.error.details.binding_digest).toBe(after.binding.digest);
    // authorizing names the binding reviewed: a stale one is refused
    await expectRefusedUnchanged(
      db.pool,
      () =>
        o.owner.post(`/orgs/${o.org}/tools/${tool.id}/authorize`, { binding_digest: tool.binding.digest }),
      409,
      "BINDING_CHANGED",
    );
    const key = await managementKey(api, o, ["tools:write"]);
    await expectRefusedUnchanged(
      db.pool,
      () =>
        key("POST", `/orgs/${o.org}/tools/${tool.id}/authorize`, { binding_digest: after.binding.digest }),
      403,
      "ADMIN_REQUIRED",
    );
    await expectRefusedUnchanged(
      db.pool,
      () => dev.b.post(`/orgs/${o.org}/tools/${tool.id}/authorize`, { binding_digest: after.binding.digest }),
      403,
      "FORBIDDEN",
    );
    const ok = await o.owner.post(`/orgs/${o.org}/tools/${tool.id}/authorize`, {
      binding_digest: after.binding.digest,
    });
    expect(ok.body.tool.authorization.state).toBe("authorized");
    expect(
      (await o.owner.patch(`/orgs/${o.org}/tools/${tool.id}`, { enabled: true })).body.tool.enabled,
    ).toBe(true);
    expect(await pipelineSees()).toBe(true);

    // an admin changing the amount mapping of the enabled tool also needs a new authorization
    const changed = await o.owner.patch(`/orgs/${o.org}/tools/${tool.id}`, { amount_mapping: mapping });
    expect(changed.body.tool.authorization.state).toBe("reauthorization_required");
    expect(await pipelineSees()).toBe(false);
    const audit = await db.pool.query(
      "select count(*)::int as n from audit_log where target_id = $1 and action = 'tool.authorized'",
      [tool.id],
    );
    expect(audit.rows[0].n).toBe(2);
  });

  it("re-reads the schema upstream when a draft is pointed at another upstream tool", async () => {
    const o = await orgWithOwner(api);
    const server = await withServer(o);
    const draft = (
      await o.owner.post(`/orgs/${o.org}/tools`, {
        mcp_server_id: server,
        exposed_name: "t",
        upstream_name: "send_payment",
        action: "a.b",
      })
    ).body.tool;
    await expectRefusedUnchanged(
      db.pool,
      () => o.owner.patch(`/orgs/${o.org}/tools/${draft.id}`, { upstream_name: "missing" }),
      422,
      "UPSTREAM_TOOL_NOT_FOUND",
    );
    const moved = await o.owner.patch(`/orgs/${o.org}/tools/${draft.id}`, { upstream_name: "refund" });
    expect(moved.body.tool).toMatchObject({
      upstream_name: "refund",
      input_schema: { type: "object", properties: { id: { type: "string" } } },
      enabled: false,
    });
    expect(moved.body.tool.binding.digest).not.toBe(draft.binding.digest);
  });

  it("lists tools by server and state, and lets read keys read", async () => {
    const o = await orgWithOwner(api);
    const erp = (await o.owner.post(`/orgs/${o.org}/mcp-servers`, { kind: "decision_only", name: "erp" }))
      .body.mcp_server.id;
    await o.owner.post(`/orgs/${o.org}/tools`, {
      mcp_server_id: erp,
      exposed_name: "a",
      action: "x.a",
      enabled: true,
    });
    await o.owner.post(`/orgs/${o.org}/tools`, { mcp_server_id: erp, exposed_name: "b", action: "x.b" });
    const read = await managementKey(api, o, ["read"]);
    const all = await read("GET", `/orgs/${o.org}/tools?mcp_server_id=${erp}`);
    expect(all.body.items.map((t: { exposed_name: string }) => t.exposed_name)).toEqual(["b", "a"]);
    expect(
      (await read("GET", `/orgs/${o.org}/tools?enabled=true`)).body.items.map(
        (t: { exposed_name: string }) => t.exposed_name,
      ),
    ).toEqual(["a"]);
    await expectRefusedUnchanged(
      db.pool,
      () => read("POST", `/orgs/${o.org}/tools`, { mcp_server_id: erp, exposed_name: "c", action: "x.c" }),
      403,
      "FORBIDDEN",
    );
  });

  it("answers tools whose binding pin was written by older code (credential version and digests only)", async () => {
    const o = await orgWithOwner(api);
    const mapping = { amount_path: "amount", currency: "EUR" };
    const t = await createDecisionOnlyTool(db.pool, o.org, { amountMapping: mapping });
    const res = await o.owner.get(`/orgs/${o.org}/tools/${t.id}`);
    expect(res.status).toBe(200);
    expect(res.body.tool.binding).toMatchObject({
      credential_version: 0,
      input_schema: null,
      amount_mapping: mapping,
    });
    expect(res.body.tool.binding.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(res.body.tool.authorization.state).toBe("authorized");
    const list = await o.owner.get(`/orgs/${o.org}/tools`);
    expect(list.body.items.map((i: { id: string }) => i.id)).toContain(t.id);
  });
});
