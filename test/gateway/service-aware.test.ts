/**
 * Service-aware upstreams through a real Gateway: MCP servers built with the
 * SDK's McpServer and the author's helper (@countersign/client/server) get
 * the evidence with each tools/call, refuse what does not hold, and attest
 * their results; the Gateway signs the server's KID into the EXECUTION,
 * checks the attestation and puts it in the receipt, which verifies offline.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decideApproval } from "../../core/src/approvals/index.js";
import { digestOf } from "../../protocol/src/canonical/index.js";
import {
  generateSeed,
  kidOf,
  nodeSigner,
  verifyBundle,
  type IdentityDocument,
} from "../../protocol/src/evidence/index.js";
import { runCountersign } from "../fixtures/cli.js";
import { longIdentityLog as longLog } from "../fixtures/identities.js";
import {
  createAuthorizationWorld,
  createMcpTool,
  signDecision,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import {
  registerServerIdentity,
  startServiceAwareUpstream,
  type ServiceAwareUpstream,
} from "../fixtures/service-aware-upstream.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import { mcpAgent, startTestGateway, type TestGateway } from "./harness.js";
import type { JsonBody } from "../fixtures/json.js";

let db: TestDatabase;
let gw: TestGateway;
let world: AuthorizationWorld;
let up: ServiceAwareUpstream;
let agent: Client;

const echo = (args: Record<string, unknown>): CallToolResult => ({
  content: [{ type: "text", text: `done: ${JSON.stringify(args)}` }],
  structuredContent: { echoed: args },
});

beforeAll(async () => {
  db = await createTestDatabase();
  gw = await startTestGateway(db, {});
  world = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
  up = await startServiceAwareUpstream({
    gateways: [gw.gateway.identity.signer.kid],
    tools: {
      refund: { run: echo },
      silent: { run: echo, misbehave: "no_attestation" },
      liar: { run: echo, misbehave: "attest_other_result" },
      tampered: { run: echo, misbehave: "alter_arguments_in_transit" },
    },
  });
  agent = await mcpAgent(gw.gateway.url, world.key);
});
afterAll(async () => {
  await agent?.close();
  await gw?.close();
  await up?.close();
  await db?.drop();
});

let n = 0;
const key = () => `sa-${++n}-${Date.now()}`;
const service = (r: CallToolResult) => (r.structuredContent as { service: Record<string, JsonBody> }).service;
const metaOf = (r: CallToolResult) => (r._meta as { service: Record<string, JsonBody> }).service;

/** A tool on its own server row, the upstream's identity registered for it (or the given log). */
async function serviceAwareTool(upstreamName: string, w = world, log?: IdentityDocument[]) {
  const t = await createMcpTool(db.pool, w.organizationId, {
    url: up.url,
    upstreamName,
    amountMapping: { amount_path: "amount", currency: "EUR" },
  });
  await registerServerIdentity(
    db.pool,
    w.organizationId,
    t.serverId,
    log ?? [up.identity(w.organizationId, t.serverId)],
  );
  return t.name;
}

async function receiptOf(actionId: string) {
  const { rows } = await db.pool.query(
    "select pa.status, pa.error_code, pa.execution_object_id, r.bundle from protected_actions pa left join receipts r on r.id = pa.receipt_id where pa.id = $1",
    [actionId],
  );
  const row = rows[0];
  return { ...row, bundle: row.bundle ? JSON.parse(row.bundle.toString("utf8")) : null };
}

const trust = () => ({
  trust: { issuers: [gw.gateway.identity.signer.kid], principals: [world.principal.kid] },
});
const byType = (bundle: { objects: { body: { type: string } }[] }, type: string) =>
  bundle.objects.filter((o) => o.body.type === type) as JsonBody[];

describe("a service-aware upstream through the Gateway", () => {
  it("an allowed call: the server checks the evidence, runs once, attests; the receipt carries the trusted attestation and verifies offline", async () => {
    const tool = await serviceAwareTool("refund");
    const args = { order: "o-1", amount: 40 };
    const res = (await agent.callTool({
      name: tool,
      arguments: args,
      _meta: { "service/idempotency-key": key() },
    })) as CallToolResult;
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent).toEqual({ echoed: args });
    expect(up.ran.refund).toBe(1);
    const r = await receiptOf(metaOf(res).protected_action_id);
    expect(r.status).toBe("succeeded");
    const [execution] = byType(r.bundle, "EXECUTION");
    const [result] = byType(r.bundle, "RESULT");
    const [attestation] = byType(r.bundle, "ATTESTATION");
    expect(execution.body.payload.server_kid).toBe(up.kid);
    expect(attestation.body.actor).toBe(up.kid);
    expect(attestation.body.payload.subject).toBe(execution.id);
    expect(attestation.body.payload.statement.result_digest).toBe(result.body.payload.result_digest);
    expect(r.bundle.receipt.body.payload.trusted_attesters).toEqual([up.kid]);
    const v = verifyBundle(r.bundle, trust());
    expect(v.valid).toBe(true);
    expect(v.warnings).toEqual([]);
    expect(v.notes.some((note) => note.startsWith("trusted attestation"))).toBe(true);
    // `countersign verify` offline, on the exported bundle.
    const cli = await verifyWithCli(r.bundle);
    expect(cli.code).toBe(0);
    expect(cli.json.valid).toBe(true);
    expect(cli.json.notes.some((note: string) => note.startsWith("trusted attestation"))).toBe(true);
    // Tampering with the attested result's digest in the stored attestation breaks the bundle.
    attestation.body.payload.statement.result_digest = digestOf({ other: true });
    expect(verifyBundle(r.bundle, trust()).valid).toBe(false);
  });

  it("a call a person approved: the evidence carries the APPROVAL the server requires, and the result is attested", async () => {
    const tool = await serviceAwareTool("refund");
    const k = key();
    const args = { order: "big", amount: 500 };
    const pending = (await agent.callTool({
      name: tool,
      arguments: args,
      _meta: { "service/idempotency-key": k },
    })) as CallToolResult;
    expect(service(pending)).toMatchObject({ status: "approval_pending" });
    const object = await signDecision(
      db.pool,
      service(pending).approval_request_id,
      world.approver.signer,
      "APPROVAL",
    );
    await decideApproval(db.pool, {
      organizationId: world.organizationId,
      approvalRequestId: service(pending).approval_request_id,
      userId: world.approver.userId,
      object,
      identity: gw.gateway.identity,
    });
    const before = up.ran.refund ?? 0;
    const ran = (await agent.callTool({
      name: tool,
      arguments: args,
      _meta: { "service/idempotency-key": k },
    })) as CallToolResult;
    expect(ran.isError).toBeFalsy();
    expect(up.ran.refund).toBe(before + 1);
    const r = await receiptOf(metaOf(ran).protected_action_id);
    expect(r.bundle.objects.slice(0, 6).map((o: { body: { type: string } }) => o.body.type)).toEqual([
      "TASK",
      "PROPOSAL",
      "APPROVAL",
      "EXECUTION",
      "RESULT",
      "DELEGATION",
    ]);
    expect(byType(r.bundle, "ATTESTATION")).toHaveLength(1);
    const v = verifyBundle(r.bundle, trust());
    expect(v.valid).toBe(true);
    expect(v.warnings).toEqual([]);
  });

  it("arguments altered on the way: the server refuses (UPSTREAM_REFUSED), its tool never runs, the action fails with a receipt that says so", async () => {
    const tool = await serviceAwareTool("tampered");
    const res = (await agent.callTool({
      name: tool,
      arguments: { order: "o-2", amount: 40 },
      _meta: { "service/idempotency-key": key() },
    })) as CallToolResult;
    expect(res.isError).toBe(true);
    expect(service(res)).toMatchObject({ status: "upstream_error", code: "UPSTREAM_REFUSED" });
    expect(up.refused.tampered).toBe(1);
    expect(up.ran.tampered ?? 0).toBe(0);
    const r = await receiptOf(service(res).protected_action_id);
    expect(r).toMatchObject({ status: "failed", error_code: "UPSTREAM_REFUSED" });
    expect(byType(r.bundle, "RESULT")[0].body.payload).toMatchObject({
      status: "failed",
      error_code: "UPSTREAM_REFUSED",
    });
    const v = verifyBundle(r.bundle, trust());
    expect(v.valid).toBe(true);
    expect(v.warnings.map((w) => w.code)).toEqual(["ATTESTATION_MISSING"]);
  });

  for (const [upstreamName, code] of [
    ["silent", "ATTESTATION_MISSING"],
    ["liar", "ATTESTATION_INVALID"],
  ] as const) {
    it(`${code}: the call ran, the action fails with a receipt recording it, and verification warns`, async () => {
      const tool = await serviceAwareTool(upstreamName);
      const before = up.ran[upstreamName] ?? 0;
      const res = (await agent.callTool({
        name: tool,
        arguments: { order: "o-3", amount: 40 },
        _meta: { "service/idempotency-key": key() },
      })) as CallToolResult;
      expect(service(res)).toMatchObject({ status: "upstream_error", code });
      expect(up.ran[upstreamName]).toBe(before + 1);
      const r = await receiptOf(service(res).protected_action_id);
      expect(r).toMatchObject({ status: "failed", error_code: code });
      expect(byType(r.bundle, "RESULT")[0].body.payload.error_code).toBe(code);
      expect(byType(r.bundle, "ATTESTATION")).toEqual([]);
      expect(r.bundle.receipt.body.payload.trusted_attesters).toEqual([up.kid]);
      const v = verifyBundle(r.bundle, trust());
      expect(v.valid).toBe(true);
      expect(v.warnings.map((w) => w.code)).toEqual(["ATTESTATION_MISSING"]);
      const cli = await verifyWithCli(r.bundle);
      expect(cli.code).toBe(0);
      expect(cli.json.warnings.map((w: { code: string }) => w.code)).toEqual(["ATTESTATION_MISSING"]);
    });
  }
});

describe("calls the Gateway cannot prepare: nothing consumed, nothing executed", () => {
  async function refusedTwice(tool: string, w: AuthorizationWorld, code: string) {
    const a = w === world ? agent : await mcpAgent(gw.gateway.url, w.key);
    const k = key();
    const args = { order: "o-4", amount: 40 };
    const first = (await a.callTool({
      name: tool,
      arguments: args,
      _meta: { "service/idempotency-key": k },
    })) as CallToolResult;
    expect(service(first)).toMatchObject({ status: "upstream_error", code });
    const again = (await a.callTool({
      name: tool,
      arguments: args,
      _meta: { "service/idempotency-key": k },
    })) as CallToolResult;
    expect(service(again)).toMatchObject({ status: "upstream_error", code });
    const r = await receiptOf(service(first).protected_action_id);
    // Still approved: no EXECUTION signed, no RESULT, no receipt.
    expect(r).toMatchObject({ status: "approved", execution_object_id: null, bundle: null });
    const { rows } = await db.pool.query(
      "select type from signed_objects where protected_action_id = $1 order by type",
      [service(first).protected_action_id],
    );
    expect(rows.map((x) => x.type)).toEqual(["PROPOSAL", "TASK"]);
    if (a !== agent) await a.close();
  }

  it("UPSTREAM_IDENTITY_UNKNOWN: the server's KID has no registered identity", async () => {
    const t = await createMcpTool(db.pool, world.organizationId, {
      url: up.url,
      upstreamName: "refund",
      amountMapping: { amount_path: "amount", currency: "EUR" },
    });
    await db.pool.query("update mcp_servers set server_kid = $2 where id = $1", [
      t.serverId,
      kidOf(nodeSigner(generateSeed()).publicKey),
    ]);
    const before = up.ran.refund ?? 0;
    await refusedTwice(t.name, world, "UPSTREAM_IDENTITY_UNKNOWN");
    expect(up.ran.refund ?? 0).toBe(before);
  });

  it("UPSTREAM_IDENTITY_TOO_LARGE: the server's identity log is over 64 KiB", async () => {
    const signer = nodeSigner(generateSeed());
    const t = await createMcpTool(db.pool, world.organizationId, {
      url: up.url,
      upstreamName: "refund",
      amountMapping: { amount_path: "amount", currency: "EUR" },
    });
    const subject = { organization_id: world.organizationId, id: t.serverId, name: "x".repeat(200) };
    const log = longLog(signer, "mcp_server", subject, 150);
    expect(JSON.stringify(log).length).toBeGreaterThan(64 * 1024);
    await registerServerIdentity(db.pool, world.organizationId, t.serverId, log);
    const before = up.ran.refund ?? 0;
    await refusedTwice(t.name, world, "UPSTREAM_IDENTITY_TOO_LARGE");
    expect(up.ran.refund ?? 0).toBe(before);
  });

  it("UPSTREAM_EVIDENCE_TOO_LARGE: the evidence is over the bound, the same on retry", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    // The principal's identity log (which the evidence carries whole) grown past 512 KiB.
    const log = longLog(
      w.principal,
      "principal",
      { organization_id: w.organizationId, id: w.organizationId, name: "p".repeat(200) },
      1100,
    );
    await db.pool.query("update identities set document = $2 where kid = $1", [
      w.principal.kid,
      JSON.stringify(log),
    ]);
    const tool = await serviceAwareTool("refund", w);
    const before = up.ran.refund ?? 0;
    await refusedTwice(tool, w, "UPSTREAM_EVIDENCE_TOO_LARGE");
    expect(up.ran.refund ?? 0).toBe(before);
  });
});

/** `countersign verify --json` on a bundle written to a file, trusting this Gateway as issuer. */
async function verifyWithCli(bundle: unknown) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "attest-"));
  try {
    const file = path.join(dir, "receipt.svcbundle");
    writeFileSync(file, JSON.stringify(bundle));
    const run = await runCountersign([
      "verify",
      file,
      "--json",
      "--trust-issuer",
      gw.gateway.identity.signer.kid,
      "--trust-principal",
      world.principal.kid,
    ]);
    return { code: run.code, json: JSON.parse(run.stdout).verification };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
