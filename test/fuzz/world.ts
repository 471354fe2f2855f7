/**
 * What the fuzz suite sends its requests to: a real Cloud API process and a
 * real Gateway process (the containers' entry points, from source) on a real
 * PostgreSQL, and one organization configured for decisions: the decision-only
 * tool of the authorization fixtures, many gateway keys and sessions (so the
 * per-key and per-credential rate limits leave room for the volume), a
 * read-scoped management key for dry runs, and one approval request waiting.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { generateSeed } from "../../protocol/src/evidence/index.js";
import { insertApiKey } from "../../core/src/keys/index.js";
import { freePort, type Queryable } from "../../core/src/store/index.js";
import { createSession, csrfTokenOf } from "../../api/src/sessions/store.js";
import { createAuthorizationWorld, type AuthorizationWorld } from "../fixtures/authorization.js";
import { fromSource, startNodeProcess, type NodeProcess } from "../fixtures/node-process.js";

export const DASHBOARD_ORIGIN = "https://dashboard.fuzz.test";

export interface Session {
  cookie: string;
  csrf: string;
}

export interface FuzzWorld {
  apiUrl: string;
  gatewayUrl: string;
  world: AuthorizationWorld;
  gatewayKeys: string[];
  /** Sessions of the owner, and of the approver of the waiting approval request. */
  ownerSessions: Session[];
  approverSessions: Session[];
  readKeys: string[];
  agentIds: string[];
  approvalRequestId: string;
  output(): string;
  stop(): Promise<void>;
}

async function waitReady(url: string, p: NodeProcess): Promise<void> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (
      await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    if (Date.now() > deadline) throw new Error(`${url} did not become ready:\n${p.output()}`);
    const exited = await Promise.race([
      p.exited.then(() => true),
      new Promise((r) => setTimeout(() => r(false), 200)),
    ]);
    if (exited) throw new Error(`server exited before it was ready:\n${p.output()}`);
  }
}

async function sessions(
  db: Queryable,
  keyHashSecret: Buffer,
  userId: string,
  organizationId: string,
  n: number,
): Promise<Session[]> {
  const out: Session[] = [];
  for (let i = 0; i < n; i++) {
    const { token } = await createSession(db, userId, organizationId);
    out.push({ cookie: `svc_session=${token}`, csrf: csrfTokenOf(keyHashSecret, token) });
  }
  return out;
}

export async function startFuzzWorld(
  db: Queryable,
  databaseUrl: string,
  opts: { credentials: number },
): Promise<FuzzWorld> {
  const keyHashSecret = randomBytes(32);
  const signingKey = generateSeed();
  const outbox = mkdtempSync(join(tmpdir(), "countersign-fuzz-"));
  const [apiPort, gatewayPort] = [await freePort(), await freePort()];
  const common = {
    DATABASE_URL: databaseUrl,
    COUNTERSIGN_HOST: "127.0.0.1",
    COUNTERSIGN_KEY_HASH_SECRET: keyHashSecret.toString("base64url"),
    COUNTERSIGN_GATEWAY_SIGNING_KEY: Buffer.from(signingKey).toString("base64url"),
    COUNTERSIGN_DEFAULT_PLAN: "enterprise",
    COUNTERSIGN_LOG_LEVEL: "warn",
    COUNTERSIGN_SHUTDOWN_GRACE_SECONDS: "2",
  };
  const api = startNodeProcess(fromSource("api/src/main.ts"), {
    env: {
      ...common,
      COUNTERSIGN_API_PORT: String(apiPort),
      COUNTERSIGN_CREDENTIAL_KEY: randomBytes(32).toString("base64"),
      COUNTERSIGN_DASHBOARD_ORIGIN: DASHBOARD_ORIGIN,
      COUNTERSIGN_MAIL_OUTBOX_DIR: outbox,
      // Each fuzzed request comes from its own address (X-Forwarded-For), so the per-IP limit does not stop the run.
      COUNTERSIGN_TRUSTED_PROXY_HOPS: "1",
    },
  });
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  await waitReady(apiUrl, api);
  const gateway = startNodeProcess(fromSource("gateway/src/main.ts"), {
    env: { ...common, COUNTERSIGN_GATEWAY_PORT: String(gatewayPort) },
  });
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  await waitReady(gatewayUrl, gateway);

  const world = await createAuthorizationWorld(db, keyHashSecret);
  const gatewayKeys: string[] = [world.key];
  for (let i = 1; i < opts.credentials; i++) {
    gatewayKeys.push(
      (
        await insertApiKey(db, keyHashSecret, {
          organizationId: world.organizationId,
          kind: "gateway",
          environment: i % 2 ? "live" : "test",
          name: `fuzz ${i}`,
          agentId: world.agentId,
          createdBy: world.ownerId,
        })
      ).key,
    );
  }
  const readKeys: string[] = [];
  for (let i = 0; i < opts.credentials; i++) {
    readKeys.push(
      (
        await insertApiKey(db, keyHashSecret, {
          organizationId: world.organizationId,
          kind: "management",
          environment: "live",
          name: `fuzz read ${i}`,
          scopes: ["read", "receipts:read", "approvals:read"],
          createdBy: world.ownerId,
        })
      ).key,
    );
  }
  // One approval request waiting for the approver: the target of fuzzed decisions.
  const pending = await fetch(`${gatewayUrl}/v1/authorize`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${world.key}` },
    body: JSON.stringify({
      tool: world.tool,
      arguments: { order: "o-pending", amount: 500 },
      idempotency_key: "fuzz-pending",
    }),
  }).then((r) => r.json() as Promise<{ status: string; approval_request_id: string }>);
  if (pending.status !== "approval_pending")
    throw new Error(`expected a pending approval, got ${JSON.stringify(pending)}`);
  return {
    apiUrl,
    gatewayUrl,
    world,
    gatewayKeys,
    readKeys,
    agentIds: [world.agentId],
    ownerSessions: await sessions(db, keyHashSecret, world.ownerId, world.organizationId, opts.credentials),
    approverSessions: await sessions(
      db,
      keyHashSecret,
      world.approver.userId,
      world.organizationId,
      opts.credentials,
    ),
    approvalRequestId: pending.approval_request_id,
    output: () => `--- api ---\n${api.output()}\n--- gateway ---\n${gateway.output()}`,
    async stop() {
      await Promise.all([api.stop(), gateway.stop()]);
      rmSync(outbox, { recursive: true, force: true });
    },
  };
}

/** Every table a refused request must leave as it was. */
export async function rowCounts(db: Queryable, organizationId: string): Promise<Record<string, number>> {
  const { rows } = await db.query(
    `select (select count(*) from protected_actions where organization_id = $1)::int as actions,
            (select count(*) from signed_objects where organization_id = $1)::int as objects,
            (select count(*) from receipts where organization_id = $1)::int as receipts,
            (select count(*) from events where organization_id = $1)::int as events,
            (select coalesce(sum(protected_actions), 0) from usage_counters where organization_id = $1)::int as usage,
            (select count(*) from approval_requests where organization_id = $1 and status = 'pending')::int as pending_approvals,
            (select count(*) from agents where organization_id = $1)::int as agents,
            (select count(*) from api_keys where organization_id = $1)::int as api_keys,
            (select count(*) from audit_log where organization_id = $1)::int as audit`,
    [organizationId],
  );
  return rows[0] as Record<string, number>;
}
