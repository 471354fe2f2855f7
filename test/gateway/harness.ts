/**
 * A real Gateway on a real database for the /v1/authorize tests, and the
 * counts a test compares before and after a call to prove what was and was
 * not recorded.
 */
import { randomBytes } from "node:crypto";
import { request } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { generateSeed } from "../../protocol/src/evidence/index.js";
import { createLogger } from "../../core/src/server/index.js";
import type { Queryable } from "../../core/src/store/index.js";
import { startGateway, type RunningGateway } from "../../gateway/src/start.js";
import type { QueueOptions } from "../../gateway/src/limits/organization-queue.js";
import type { TestDatabase } from "../setup/database.js";
import type { JsonBody } from "../fixtures/json.js";

export interface TestGateway {
  gateway: RunningGateway;
  keyHashSecret: Buffer;
  signingKey: Uint8Array;
  authorize(
    key: string | null,
    body: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: JsonBody; headers: Headers }>;
  close(): Promise<void>;
}

export async function startTestGateway(
  db: TestDatabase,
  opts: {
    keyHashSecret?: Buffer;
    signingKey?: Uint8Array;
    queue?: Partial<QueueOptions>;
    defaultPlan?: "developer" | "enterprise";
    credentialKey?: Buffer;
    upstreamTimeoutMs?: number;
    directToolsCall?: boolean;
    /** Extra CA certificates for upstream MCP servers (COUNTERSIGN_UPSTREAM_CA_FILE). */
    upstreamCa?: string[];
    /** COUNTERSIGN_MCP_ALLOWED_ORIGINS. */
    mcpAllowedOrigins?: ReadonlySet<string>;
    /** COUNTERSIGN_DETAILED_EXPLANATIONS. */
    detailedExplanations?: boolean;
  } = {},
): Promise<TestGateway> {
  const keyHashSecret = opts.keyHashSecret ?? randomBytes(32);
  const signingKey = opts.signingKey ?? generateSeed();
  const gateway = await startGateway({
    pool: db.pool,
    databaseUrl: db.url,
    logger: createLogger("gateway", "silent"),
    host: "127.0.0.1",
    port: 0,
    shutdownGraceSeconds: 1,
    keyHashSecret,
    signingKey,
    defaultPlan: opts.defaultPlan ?? "developer",
    queue: opts.queue,
    credentialKey: opts.credentialKey,
    allowLoopbackUrls: true,
    upstreamTimeoutMs: opts.upstreamTimeoutMs,
    directToolsCall: opts.directToolsCall,
    mcpAllowedOrigins: opts.mcpAllowedOrigins,
    detailedExplanations: opts.detailedExplanations,
    upstreamCa: opts.upstreamCa,
    // Tests run recovery themselves, with a clock of their choosing.
    recoveryEveryMs: 3_600_000,
  });
  return {
    gateway,
    keyHashSecret,
    signingKey,
    async authorize(key, body, headers = {}) {
      const res = await fetch(`${gateway.url}/v1/authorize`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(key ? { authorization: `Bearer ${key}` } : {}),
          ...headers,
        },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
    },
    close: () => gateway.stop(),
  };
}

/** The official MCP SDK client as the agent, over Streamable HTTP with the gateway key as bearer token. */
export async function mcpAgent(gatewayUrl: string, key: string): Promise<Client> {
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gatewayUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

export interface Recorded {
  actions: number;
  receipts: number;
  objects: number;
  approvals: number;
  events: number;
  usage: number;
}

/** What an organization has recorded: every table a decision writes. */
export async function recorded(db: Queryable, organizationId: string): Promise<Recorded> {
  const { rows } = await db.query(
    `select (select count(*) from protected_actions where organization_id = $1)::int as actions,
            (select count(*) from receipts where organization_id = $1)::int as receipts,
            (select count(*) from signed_objects where organization_id = $1)::int as objects,
            (select count(*) from approval_requests where organization_id = $1)::int as approvals,
            (select count(*) from events where organization_id = $1)::int as events,
            (select coalesce(sum(protected_actions), 0) from usage_counters where organization_id = $1)::int as usage`,
    [organizationId],
  );
  return rows[0] as Recorded;
}

/** `countersign_approval_waits` of a Gateway: its calls held waiting for a person's decision. */
async function approvalWaits(gateway: TestGateway): Promise<number> {
  const text = await (await fetch(`${gateway.gateway.url}/metrics`)).text();
  return Number(/^countersign_approval_waits (\d+)/m.exec(text)?.[1]);
}

/**
 * Polls approvalWaits until it is `value` or 10 s have passed, and returns the last reading: a
 * wait that a caller's leave did not stop is held for 60 s, so it reads as still held.
 */
async function approvalWaitsWhen(gateway: TestGateway, value: number): Promise<number> {
  const deadline = Date.now() + 10_000;
  let n = await approvalWaits(gateway);
  while (n !== value && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    n = await approvalWaits(gateway);
  }
  return n;
}

/**
 * A caller that sends a POST held for a person's decision and leaves before the answer: sends it,
 * waits until the Gateway holds it (approvalWaitsWhen), closes the connection, and returns how many
 * calls the Gateway still holds after that (0 when the leave stopped the wait).
 */
export async function heldThenLeft(
  gateway: TestGateway,
  path: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ held: number; left: number }> {
  const url = new URL(`${gateway.gateway.url}${path}`);
  const req = request({
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: "POST",
    agent: false,
    headers: {
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(body)),
      ...headers,
    },
  });
  req.on("error", () => undefined);
  req.end(body);
  const held = await approvalWaitsWhen(gateway, 1);
  req.destroy();
  return { held, left: await approvalWaitsWhen(gateway, 0) };
}
