/**
 * A real Gateway for the Python client's tests (clients/python/tests): an
 * embedded PostgreSQL (or TEST_DATABASE_URL), a migrated database, a Gateway
 * and a busy one (organization queue of 0), and organizations ready for
 * decisions. It prints one JSON line with the URLs and keys, then serves a
 * small control endpoint on 127.0.0.1 that does what people and time do in the
 * TypeScript tests (approve, reject, expire, cancel, count what was recorded).
 * It stops when its stdin closes.
 *
 *   node --conditions=countersign-source --import tsx test/clients/python-gateway.ts
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { decideApproval } from "../../core/src/approvals/index.js";
import {
  generateSeed,
  nodeSigner,
  verifyBundle,
  type IdentityDocument,
} from "../../protocol/src/evidence/index.js";
import { createLogger } from "../../core/src/server/index.js";
import { startEmbeddedPostgres } from "../../core/src/store/embedded-postgres.js";
import { createPool, migrate } from "../../core/src/store/index.js";
import { startGateway } from "../../gateway/src/start.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import {
  createAuthorizationWorld,
  createMcpTool,
  refundMapping,
  signDecision,
} from "../fixtures/authorization.js";
import { echoTool, startUpstream } from "../fixtures/upstream-tools.js";
import { registerServerIdentity } from "../fixtures/service-aware-upstream.js";
import { longIdentityLog } from "../fixtures/identities.js";
import { recorded } from "../gateway/harness.js";
import { startEndlessPagingServer } from "./paging-mcp-server.js";
import { startCloudApi, type CloudApi } from "../fixtures/cloud-api.js";
import { createTestCa } from "../fixtures/https-receiver.js";
import { thirdPartyWorld, type ThirdPartyWorld } from "./third-party-world.js";
import { forceActionStatus, shiftActionTimes } from "../../core/src/actions/fixtures.test-support.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "countersign-py-"));
chmodSync(dir, 0o755); // the server may run as an unprivileged user (see embedded-postgres.ts)
const embedded = process.env.TEST_DATABASE_URL
  ? null
  : await startEmbeddedPostgres({ dataDir: path.join(dir, "data"), ephemeral: true });
const serverUrl = process.env.TEST_DATABASE_URL ?? embedded!.url;
const name = `py_${randomBytes(6).toString("hex")}`;
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
await admin.query(`create database ${name}`);
await admin.end();
const url = new URL(serverUrl);
url.pathname = `/${name}`;
const pool = createPool(url.toString(), { applicationName: "python-tests", max: 10 });
await migrate(pool);

const keyHashSecret = randomBytes(32);
const signingKey = generateSeed();
// For the third-party MCP client tests: the upstream an admin registers through the Cloud API is on https.
const ca = createTestCa();
const common = {
  pool,
  databaseUrl: url.toString(),
  logger: createLogger("gateway", "silent"),
  host: "127.0.0.1",
  port: 0,
  shutdownGraceSeconds: 1,
  keyHashSecret,
  signingKey,
  defaultPlan: "developer" as const,
  allowLoopbackUrls: true,
  upstreamCa: [ca.caPem],
  recoveryEveryMs: 3_600_000,
};
const gateway = await startGateway(common);
const busy = await startGateway({ ...common, queue: { perOrganization: 0, maxWaiting: 0 } });

const world = await createAuthorizationWorld(pool, keyHashSecret);
const limited = await createAuthorizationWorld(pool, keyHashSecret, { plan: "developer" });
await pool.query(
  "insert into usage_counters (organization_id, month, shard, protected_actions) values ($1, date_trunc('month', now() at time zone 'utc')::date, 0, 500)",
  [limited.organizationId],
);
const throttled = await createAuthorizationWorld(pool, keyHashSecret);
await pool.query(
  "insert into rate_limit_buckets (api_key_id, tokens, refilled_at) values ($1, 0, now() + interval '1 hour')",
  [throttled.keyId],
);

// For the MCP helper: real upstream MCP servers built with the SDK. `refund` sits behind the
// Gateway as the world's MCP tool; `paged` is an organization with 53 tools (several tools/list
// pages); `direct` is spoken to without the Gateway (a plain MCP server, and JSON-RPC errors);
// `endless` never stops paging tools/list.
const upstream = await startUpstream({ tools: { refund: echoTool } });
const mcpTool = (
  await createMcpTool(pool, world.organizationId, {
    url: upstream.url,
    upstreamName: "refund",
    amountMapping: refundMapping,
  })
).name;
const paged = await createAuthorizationWorld(pool, keyHashSecret);
for (let i = 0; i < 53; i++)
  await createMcpTool(pool, paged.organizationId, {
    url: upstream.url,
    upstreamName: "refund",
    name: `t_${String(i).padStart(2, "0")}`,
  });
const direct = await startUpstream({
  tools: {
    refund: echoTool,
    unavailable: () => {
      throw new McpError(-32000, "the database is unavailable", {
        service: { status: "unavailable", code: "DATABASE_UNAVAILABLE", retryable: true },
      });
    },
    broken: () => {
      throw new McpError(-32603, "internal error");
    },
  },
});
const endless = await startEndlessPagingServer();

let oversized: Promise<typeof world> | undefined;
/** An organization whose principal's identity log is over 512 KiB (made once, on first use). */
function oversizedWorld() {
  oversized ??= (async () => {
    const w = await createAuthorizationWorld(pool, keyHashSecret);
    const subject = { organization_id: w.organizationId, id: w.organizationId, name: "p".repeat(200) };
    await pool.query("update identities set document = $2 where kid = $1", [
      w.principal.kid,
      JSON.stringify(longIdentityLog(w.principal, "principal", subject, 1100)),
    ]);
    return w;
  })();
  return oversized;
}

let thirdParty: Promise<{ api: CloudApi; tp: ThirdPartyWorld }> | undefined;
/**
 * The third-party MCP client tests' organization (third-party-world.ts): a Cloud API, started on
 * first use, through which an admin registers the upstream and makes its tool (a discovery).
 */
function thirdPartyOrganization() {
  thirdParty ??= (async () => {
    const api = await startCloudApi(
      { url: url.toString(), pool, drop: async () => undefined },
      { extra: { mcp: { allowLoopbackUrls: true, ca: [ca.caPem] } } },
    );
    return { api, tp: await thirdPartyWorld(pool, api, { keyHashSecret, gateway }, ca) };
  })();
  return thirdParty;
}

/** What a person or the passing of time does, by name. */
const controls: Record<string, (input: Record<string, string>) => Promise<unknown>> = {
  async decide({ approval_request_id, type }) {
    const object = await signDecision(
      pool,
      approval_request_id!,
      world.approver.signer,
      type === "REJECTION" ? "REJECTION" : "APPROVAL",
    );
    await decideApproval(pool, {
      organizationId: world.organizationId,
      approvalRequestId: approval_request_id!,
      userId: world.approver.userId,
      object,
      identity: gateway.identity,
    });
    return {};
  },
  async expire({ protected_action_id }) {
    await shiftActionTimes(pool, protected_action_id!, { expiresAt: "-1 second" });
    return {};
  },
  async cancel({ protected_action_id }) {
    await forceActionStatus(pool, protected_action_id!, "cancelled");
    return {};
  },
  async recorded({ organization }) {
    const ids: Record<string, string> = {
      world: world.organizationId,
      limited: limited.organizationId,
      throttled: throttled.organizationId,
    };
    return recorded(pool, ids[organization!]!);
  },
  async third_party() {
    const { tp } = await thirdPartyOrganization();
    return { key: tp.world.key, tool: tp.tool };
  },
  async third_party_approve({ approval_request_id }) {
    await (await thirdPartyOrganization()).tp.approve(approval_request_id!);
    return {};
  },
  async third_party_calls() {
    return (await thirdPartyOrganization()).tp.upstream.calls;
  },
  async third_party_outcome({ id }) {
    const { rows } = await pool.query(
      "select pa.status, r.outcome from protected_actions pa left join receipts r on r.id = pa.receipt_id where pa.id = $1",
      [id],
    );
    return rows[0] ?? null;
  },
  async upstream_calls() {
    return { gateway: upstream.calls, direct: direct.calls, endless_pages: endless.pages() };
  },
  // Service-aware upstreams (the Python server helper): a tool on an MCP server at `url`, its identity
  // registered as the Cloud API stores one, and a receipt's bundle with its offline verification.
  // `world: "oversized"`: in an organization whose principal's identity log (which the evidence
  // carries whole) is over 512 KiB, so every call's evidence is over the bound; its key is returned.
  async service_aware_tool({ url: upstreamUrl, upstream_name, world: which }) {
    const w = which === "oversized" ? await oversizedWorld() : world;
    const t = await createMcpTool(pool, w.organizationId, {
      url: upstreamUrl!,
      upstreamName: upstream_name!,
      amountMapping: refundMapping,
    });
    return {
      name: t.name,
      key: w.key,
      server_id: t.serverId,
      organization_id: w.organizationId,
      gateway_kid: gateway.identity.signer.kid,
    };
  },
  async register_server_identity({ server_id, organization_id, document }) {
    await registerServerIdentity(pool, organization_id ?? world.organizationId, server_id!, [
      document as unknown as IdentityDocument,
    ]);
    return {};
  },
  // A server_kid for which no identity is stored (as after the identity row was lost).
  async unknown_server_identity({ server_id }) {
    await pool.query("update mcp_servers set server_kid = $2 where id = $1", [
      server_id,
      nodeSigner(generateSeed()).kid,
    ]);
    return {};
  },
  // A registered server identity whose log grew past 64 KiB.
  async long_server_identity({ server_id }) {
    const subject = { organization_id: world.organizationId, id: server_id!, name: "x".repeat(200) };
    const log = longIdentityLog(nodeSigner(generateSeed()), "mcp_server", subject, 150);
    await registerServerIdentity(pool, world.organizationId, server_id!, log);
    return {};
  },
  // How far an action went: its status, error code, EXECUTION and receipt (null while not consumed).
  async action_state({ id }) {
    const { rows } = await pool.query(
      "select status, error_code, execution_object_id, receipt_id from protected_actions where id = $1",
      [id],
    );
    return rows[0] ?? null;
  },
  // What was signed for an action, by type: PROPOSAL and TASK only while nothing was consumed.
  async signed_types({ id }) {
    const { rows } = await pool.query<{ type: string }>(
      "select type from signed_objects where protected_action_id = $1 order by type",
      [id],
    );
    return rows.map((r) => r.type);
  },
  async receipt({ id }) {
    const { rows } = await pool.query("select bundle from receipts where id = $1", [id]);
    const bundle = JSON.parse(rows[0].bundle.toString("utf8"));
    const verification = verifyBundle(bundle, {
      trust: { issuers: [gateway.identity.signer.kid], principals: [world.principal.kid] },
    });
    return { bundle, verification };
  },
  async protected_action({ id }) {
    const { rows } = await pool.query("select status, idempotency_key from protected_actions where id = $1", [
      id,
    ]);
    return rows[0] ?? null;
  },
};

const control = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const fn = controls[(req.url ?? "").slice(1)];
  try {
    if (!fn) throw new Error(`no control ${req.url}`);
    const out = await fn(chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : {});
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(out));
  } catch (err) {
    res.writeHead(500, { "content-type": "text/plain" }).end(String(err));
  }
});
await new Promise<void>((resolve) => control.listen(0, "127.0.0.1", resolve));

process.stdout.write(
  `${JSON.stringify({
    gateway_url: gateway.url,
    busy_gateway_url: busy.url,
    control_url: `http://127.0.0.1:${(control.address() as AddressInfo).port}`,
    key: world.key,
    tool: world.tool,
    limited_key: limited.key,
    limited_tool: limited.tool,
    throttled_key: throttled.key,
    throttled_tool: throttled.tool,
    mcp_tool: mcpTool,
    paged_key: paged.key,
    direct_url: direct.url.replace(/\/mcp$/, ""),
    endless_url: endless.url,
  })}\n`,
);

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  control.close();
  const third = await thirdParty?.catch(() => undefined);
  await Promise.all([
    upstream.close(),
    direct.close(),
    endless.close(),
    third?.tp.close(),
    third?.api.close(),
  ]);
  ca.dispose();
  await busy.stop();
  await gateway.stop();
  await pool.end();
  await embedded?.stop();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}
process.stdin.on("end", stop);
process.stdin.on("close", stop);
process.stdin.resume();
process.on("SIGTERM", stop);
