/**
 * COUNTERSIGN_UPSTREAM_CA_FILE through real Gateway processes: an MCP server
 * whose certificate chains to the organization's own CA (not a public one)
 * is reached when the file names that CA, refused
 * (UPSTREAM_UNREACHABLE, the tool never runs) when nothing does, and a file
 * that cannot serve as a trust bundle stops the Gateway at start, naming the
 * setting.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSeed, nodeSigner } from "../../protocol/src/evidence/index.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import {
  createAuthorizationWorld,
  createMcpTool,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { createTestCa, type TestCa } from "../fixtures/https-receiver.js";
import { echoTool } from "../fixtures/upstream-tools.js";
import {
  registerServerIdentity,
  startServiceAwareUpstream,
  type ServiceAwareUpstream,
} from "../fixtures/service-aware-upstream.js";
import { startGatewayProcess, type GatewayProcess } from "../multi-replica/gateway-process.js";

let db: TestDatabase;
let ca: TestCa;
let up: ServiceAwareUpstream;
let world: AuthorizationWorld;
let tool: { name: string };
let scratch: string;
const gateways: GatewayProcess[] = [];
const keyHashSecret = randomBytes(32);
const signingKey = generateSeed();
const credentialKey = randomBytes(32);
const env = {
  COUNTERSIGN_ALLOW_LOOPBACK_URLS: "true",
  COUNTERSIGN_CREDENTIAL_KEY: credentialKey.toString("base64url"),
};

beforeAll(async () => {
  db = await createTestDatabase();
  ca = createTestCa();
  scratch = mkdtempSync(path.join(os.tmpdir(), "cs-upstream-ca-"));
  world = await createAuthorizationWorld(db.pool, keyHashSecret);
  up = await startServiceAwareUpstream({
    gateways: [nodeSigner(signingKey).kid],
    tls: ca,
    tools: { refund: { run: echoTool } },
  });
  const created = await createMcpTool(db.pool, world.organizationId, {
    url: up.url,
    upstreamName: "refund",
    amountMapping: { amount_path: "amount", currency: "EUR" },
    credential: { key: credentialKey, authorization: "Bearer t" },
  });
  await registerServerIdentity(db.pool, world.organizationId, created.serverId, [
    up.identity(world.organizationId, created.serverId),
  ]);
  tool = created;
}, 120_000);
afterAll(async () => {
  await Promise.all(gateways.map((g) => g.stop()));
  await up?.close();
  await db?.drop();
  ca?.dispose();
  rmSync(scratch, { recursive: true, force: true });
});

async function gateway(extra: Record<string, string>): Promise<GatewayProcess> {
  const g = await startGatewayProcess({
    databaseUrl: db.url,
    keyHashSecret,
    signingKey,
    env: { ...env, ...extra },
  });
  gateways.push(g);
  return g;
}

async function call(g: GatewayProcess): Promise<CallToolResult> {
  const client = new Client({ name: "ca-agent", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${g.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${world.key}` } },
    }),
  );
  try {
    return (await client.callTool({
      name: tool.name,
      arguments: { order: "x", amount: 5 },
    })) as CallToolResult;
  } finally {
    await client.close();
  }
}

const codeOf = (r: CallToolResult) => (r.structuredContent as { service?: { code?: string } }).service?.code;

describe("COUNTERSIGN_UPSTREAM_CA_FILE", () => {
  it("lets a tools/call reach an MCP server whose certificate chains to the named CA", async () => {
    const trusting = await gateway({ COUNTERSIGN_UPSTREAM_CA_FILE: ca.caFile });
    const before = up.ran.refund ?? 0;
    const answer = await call(trusting);
    expect(answer.isError, JSON.stringify(answer)).toBeFalsy();
    expect(up.ran.refund).toBe(before + 1);
    // A second call goes over the connection the first one opened, under the same trust.
    expect((await call(trusting)).isError).toBeFalsy();
    expect(up.ran.refund).toBe(before + 2);
  });

  it("without it, the private CA is not trusted: UPSTREAM_UNREACHABLE, and the tool never runs", async () => {
    const plain = await gateway({});
    const before = up.ran.refund ?? 0;
    const answer = await call(plain);
    expect(answer.isError).toBe(true);
    expect(codeOf(answer)).toBe("UPSTREAM_UNREACHABLE");
    expect(up.ran.refund ?? 0).toBe(before);
  });

  it("stops the Gateway at start, naming the setting, when the file cannot serve as a trust bundle", async () => {
    const notCa = path.join(scratch, "server-cert.pem");
    writeFileSync(notCa, ca.cert); // a server's certificate, not a CA's
    const garbage = path.join(scratch, "garbage.pem");
    writeFileSync(
      garbage,
      "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n",
    );
    for (const file of [path.join(scratch, "missing.pem"), notCa, garbage]) {
      const started = gateway({ COUNTERSIGN_UPSTREAM_CA_FILE: file });
      await expect(started).rejects.toThrow(/gateway exited 2/);
      await expect(started).rejects.toThrow(
        /COUNTERSIGN_UPSTREAM_CA_FILE.*expected a readable file of PEM CA certificates/,
      );
    }
  });
});
