/**
 * Gateway-enforced execution across processes (SPEC 1.2): the same call with
 * the same key fired at two Gateway processes many times at once runs on the
 * upstream exactly once; a Gateway killed (SIGKILL) while the upstream call
 * is in flight leaves an action that recovery closes as failed /
 * INTERRUPTED with a receipt, and the call never runs a second time. The
 * upstream is service-aware (it checks the evidence and attests), as the
 * exactly-once guarantee must hold for those too.
 */
import { randomBytes } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerGatewayIdentity } from "../../core/src/identities/index.js";
import { generateSeed, nodeSigner, verifyBundle } from "../../protocol/src/evidence/index.js";
import { recoverInterrupted } from "../../core/src/execution/index.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import {
  createAuthorizationWorld,
  createMcpTool,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { echoTool } from "../fixtures/upstream-tools.js";
import {
  registerServerIdentity,
  startServiceAwareUpstream,
  type ServiceAwareUpstream,
} from "../fixtures/service-aware-upstream.js";
import { startGatewayProcess, type GatewayProcess } from "./gateway-process.js";

let db: TestDatabase;
let a: GatewayProcess;
let b: GatewayProcess;
let world: AuthorizationWorld;
let up: ServiceAwareUpstream;
let releaseHang!: () => void;
const hang = new Promise<void>((r) => (releaseHang = r));
const keyHashSecret = randomBytes(32);
const signingKey = generateSeed();
const credentialKey = randomBytes(32);
const amountMapping = { amount_path: "amount", currency: "EUR" };
const env = {
  COUNTERSIGN_ALLOW_LOOPBACK_URLS: "true",
  COUNTERSIGN_CREDENTIAL_KEY: credentialKey.toString("base64url"),
};

beforeAll(async () => {
  db = await createTestDatabase();
  [a, b] = await Promise.all([
    startGatewayProcess({ databaseUrl: db.url, keyHashSecret, signingKey, env }),
    startGatewayProcess({ databaseUrl: db.url, keyHashSecret, signingKey, env }),
  ]);
  world = await createAuthorizationWorld(db.pool, keyHashSecret);
  up = await startServiceAwareUpstream({
    gateways: [nodeSigner(signingKey).kid],
    tools: {
      refund: {
        run: async (args) => {
          await new Promise((r) => setTimeout(r, 100)); // long enough for the racing requests to find it running
          return echoTool(args);
        },
      },
      hang: {
        run: async () => {
          await hang;
          return { content: [{ type: "text", text: "finally" }] };
        },
      },
    },
  });
}, 120_000);
afterAll(async () => {
  releaseHang();
  await Promise.all([a?.stop(), b?.stop()]);
  await up?.close();
  await db?.drop();
});

async function agentAt(url: string): Promise<Client> {
  const client = new Client({ name: "replica-agent", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${world.key}` } },
    }),
  );
  return client;
}

describe("two Gateway processes, one upstream", () => {
  it("the same call with the same key at both, many times at once: one upstream execution, one receipt", async () => {
    const tool = await createMcpTool(db.pool, world.organizationId, {
      url: up.url,
      upstreamName: "refund",
      amountMapping,
      credential: { key: credentialKey, authorization: "Bearer t" },
    });
    await registerServerIdentity(db.pool, world.organizationId, tool.serverId, [
      up.identity(world.organizationId, tool.serverId),
    ]);
    const agents = await Promise.all([a.url, b.url, a.url, b.url].map(agentAt));
    const k = `race-${Date.now()}`;
    const answers = (await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        agents[i % 4]!.callTool({
          name: tool.name,
          arguments: { order: "x", amount: 5 },
          _meta: { "service/idempotency-key": k },
        }),
      ),
    )) as CallToolResult[];
    await Promise.all(agents.map((c) => c.close()));
    expect(up.ran.refund).toBe(1);
    const codes = answers
      .filter((x) => x.isError)
      .map((x) => (x.structuredContent as { service: { code: string } }).service.code);
    for (const code of codes)
      expect(["EXECUTION_IN_PROGRESS", "DUPLICATE_IN_FLIGHT", "REPLAY"]).toContain(code);
    const { rows } = await db.pool.query(
      "select r.bundle from receipts r join protected_actions pa on pa.id = r.protected_action_id where pa.idempotency_key = $1",
      [k],
    );
    expect(rows).toHaveLength(1);
    // The one execution was attested by the upstream, and the receipt says so.
    const bundle = JSON.parse(rows[0].bundle.toString("utf8"));
    expect(
      bundle.objects
        .filter((o: { body: { type: string } }) => o.body.type === "ATTESTATION")
        .map((o: { body: { actor: string } }) => o.body.actor),
    ).toEqual([up.kid]);
    const verified = verifyBundle(bundle, {
      trust: { issuers: [nodeSigner(signingKey).kid], principals: [world.principal.kid] },
    });
    expect(verified.valid).toBe(true);
    expect(verified.warnings).toEqual([]);
  });

  it("SIGKILL during the upstream call: recovery marks the action failed / INTERRUPTED with a receipt; the call never runs again", async () => {
    const tool = await createMcpTool(db.pool, world.organizationId, {
      url: up.url,
      upstreamName: "hang",
      amountMapping,
    });
    await registerServerIdentity(db.pool, world.organizationId, tool.serverId, [
      up.identity(world.organizationId, tool.serverId),
    ]);
    const victim = await startGatewayProcess({ databaseUrl: db.url, keyHashSecret, signingKey, env });
    const agent = await agentAt(victim.url);
    const k = `kill-${Date.now()}`;
    void agent
      .callTool({ name: tool.name, arguments: { amount: 5 }, _meta: { "service/idempotency-key": k } })
      .catch(() => undefined);
    while ((up.ran.hang ?? 0) === 0) await new Promise((r) => setTimeout(r, 20));
    await victim.kill();
    const { rows } = await db.pool.query(
      "select id, status, execution_deadline from protected_actions where idempotency_key = $1",
      [k],
    );
    expect(rows[0].status).toBe("executing");

    // Recovery, as any replica runs it, once the execution's deadline has passed.
    const identity = await registerGatewayIdentity(db.pool, signingKey);
    const recovered = await recoverInterrupted(
      db.pool,
      identity,
      new Date(rows[0].execution_deadline.getTime() + 1000),
    );
    expect(recovered).toBe(1);
    const after = await db.pool.query(
      "select pa.status, pa.error_code, r.outcome, r.kind, r.bundle from protected_actions pa join receipts r on r.id = pa.receipt_id where pa.id = $1",
      [rows[0].id],
    );
    const { bundle: stored, ...closed } = after.rows[0];
    expect(closed).toEqual({
      status: "failed",
      error_code: "INTERRUPTED",
      outcome: "failed",
      kind: "execution",
    });
    // The EXECUTION named the service-aware server, which never answered: the receipt still vouches
    // for its identity, carries no attestation, and verifies offline with the warning that says so.
    const bundle = JSON.parse(stored.toString("utf8"));
    const execution = bundle.objects.find((o: { body: { type: string } }) => o.body.type === "EXECUTION");
    expect(execution.body.payload.server_kid).toBe(up.kid);
    expect(bundle.receipt.body.payload.trusted_attesters).toEqual([up.kid]);
    const verified = verifyBundle(bundle, {
      trust: { issuers: [nodeSigner(signingKey).kid], principals: [world.principal.kid] },
    });
    expect(verified.valid).toBe(true);
    expect(verified.warnings.map((w) => w.code)).toEqual(["ATTESTATION_MISSING"]);

    // The same key at another replica: the stored outcome, no second upstream call.
    const other = await agentAt(b.url);
    const again = (await other.callTool({
      name: tool.name,
      arguments: { amount: 5 },
      _meta: { "service/idempotency-key": k },
    })) as CallToolResult;
    await other.close();
    expect(again.isError).toBe(true);
    expect(
      (again.structuredContent as { service: { code: string; error_code: string } }).service,
    ).toMatchObject({ code: "RESULT_NOT_RECORDED", error_code: "INTERRUPTED" });
    expect(up.ran.hang).toBe(1);
    await agent.close().catch(() => undefined);
  });
});
