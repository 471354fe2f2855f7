/**
 * Warm admissions (core/src/decision/warm-admission.ts): once a Gateway
 * process has read a key and a call's context, it decides that key's calls
 * from them in one write that holds only at the organization's
 * configuration revision (migration 0026) and takes the bucket's tokens. A
 * change committed since, of any kind, is never decided around: the warm
 * write finds the revision moved, writes nothing, and the call is decided
 * again from a read, answering what a fresh Gateway would. Each case shows
 * both halves: the call was attempted warm (its statements are counted),
 * and the answer is the change's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import {
  createAuthorizationWorld,
  createGatewayKey,
  createMcpTool,
  refundMapping,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { countingPool, ofCalls } from "../fixtures/counting-pool.js";
import { echoTool, startUpstream, type Upstream } from "../fixtures/upstream-tools.js";
import { startTestGateway, type TestGateway } from "./harness.js";

let db: TestDatabase;
let counting: ReturnType<typeof countingPool>;
let gw: TestGateway;
let up: Upstream;

beforeAll(async () => {
  db = await createTestDatabase();
  counting = countingPool(db.url);
  gw = await startTestGateway({ ...db, pool: counting.pool }, { defaultPlan: "enterprise" });
  up = await startUpstream({ tools: { refund: echoTool } });
});
afterAll(async () => {
  await gw?.close();
  await up?.close();
  await counting?.pool.end();
  await db?.drop();
});

const small = (w: AuthorizationWorld) => ({ tool: w.tool, arguments: { amount: 5 } });

/** A call's answer and the names of the statements it sent. */
async function counted(key: string, body: unknown) {
  counting.sent.length = 0;
  const res = await gw.authorize(key, body);
  return { res, names: ofCalls(counting.sent).map((s) => s.name) };
}

async function actions(w: AuthorizationWorld): Promise<number> {
  const { rows } = await db.pool.query(
    "select count(*)::int as n from protected_actions where organization_id = $1",
    [w.organizationId],
  );
  return rows[0].n;
}

/** A world whose key and context this Gateway holds: its last call was decided in one warm write. */
async function warmWorld(): Promise<AuthorizationWorld> {
  const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
  // The first call is admitted by a read (and compiles the world's policy version).
  expect((await counted(w.key, small(w))).names).toEqual([
    "gateway_admission",
    "policy_document",
    "decision_write",
  ]);
  const warm = await counted(w.key, small(w));
  expect(warm.res.body.status).toBe("authorized");
  expect(warm.names).toEqual(["decision_write_warm"]);
  return w;
}

const changes: Array<{
  change: string;
  apply: (w: AuthorizationWorld) => [string, unknown[]];
  http: number;
  code: string;
  recorded: boolean;
}> = [
  {
    change: "the delegation is revoked",
    apply: (w) => ["update delegations set revoked_at = now() where id = $1", [w.delegationId]],
    http: 200,
    code: "NO_DELEGATION",
    recorded: true,
  },
  {
    change: "the policy's new version denies",
    apply: (w) => [
      `with v as (
         insert into policy_versions (policy_id, organization_id, number, document, document_size, digest,
                                      language_revision, status)
         select policy_id, organization_id, number + 1, jsonb_set(document, '{rules,2,effect}', '"deny"'),
                document_size, 'sha256:' || repeat('0', 64), language_revision, 'active'
           from policy_versions where id = $2
         returning id)
       update policies set active_version_id = (select id from v) where id = $1`,
      [w.policyId, w.versionId],
    ],
    http: 200,
    code: "POLICY_DENIED",
    recorded: true,
  },
  {
    change: "the agent is disabled",
    apply: (w) => ["update agents set status = 'disabled' where id = $1", [w.agentId]],
    http: 401,
    code: "UNAUTHORIZED",
    recorded: false,
  },
  {
    change: "the key is revoked",
    apply: (w) => ["update api_keys set revoked_at = now() where id = $1", [w.keyId]],
    http: 401,
    code: "UNAUTHORIZED",
    recorded: false,
  },
  {
    change: "the key's creator is disabled",
    apply: (w) => ["update users set disabled_at = now() where id = $1", [w.ownerId]],
    http: 401,
    code: "UNAUTHORIZED",
    recorded: false,
  },
  {
    change: "the key's creator becomes a viewer",
    apply: (w) => [
      "update memberships set role = 'viewer' where organization_id = $1 and user_id = $2",
      [w.organizationId, w.ownerId],
    ],
    http: 401,
    code: "UNAUTHORIZED",
    recorded: false,
  },
];

describe("a change committed after a process read a key and a context is never decided around", () => {
  it.each(changes)("$change", async ({ apply, http, code, recorded }) => {
    const w = await warmWorld();
    const before = await actions(w);
    const [text, values] = apply(w);
    await db.pool.query(text, values);
    const { res, names } = await counted(w.key, small(w));
    // Attempted warm, found stale by its write, decided again from a read.
    expect(names.slice(0, 2)).toEqual(["decision_write_warm", "gateway_admission"]);
    expect(res.status).toBe(http);
    expect(res.body.code).toBe(code);
    expect(await actions(w)).toBe(before + (recorded ? 1 : 0));
  });

  it("a key past its expiry by the clock is refused without a write, though nothing changed", async () => {
    const w = await warmWorld();
    // A second key of the same agent, expiring shortly: read once, then used warm.
    const k = await createGatewayKey(db.pool, gw.keyHashSecret, w.organizationId, w.agentId, w.ownerId);
    await db.pool.query(
      "update api_keys set expires_at = clock_timestamp() + interval '1500 milliseconds' where id = $1",
      [k.id],
    );
    expect((await counted(k.key, small(w))).names).toEqual(["gateway_admission", "decision_write"]);
    expect((await counted(k.key, small(w))).names).toEqual(["decision_write_warm"]);
    const before = await actions(w);
    await new Promise((r) => setTimeout(r, 1600));
    const { res, names } = await counted(k.key, small(w));
    expect(names).toEqual(["gateway_admission"]);
    expect(res.status).toBe(401);
    expect(await actions(w)).toBe(before);
  });

  it("an observe window past its end by the clock no longer relaxes a warm decision, though nothing changed", async () => {
    const w = await warmWorld();
    await db.pool.query(
      `insert into observe_windows (organization_id, agent_id, hours, ends_at, live)
       values ($1, $2, 1, clock_timestamp() + interval '1500 milliseconds', true)`,
      [w.organizationId, w.agentId],
    );
    // Held for a person by the policy, relaxed while the window is open.
    const held = { tool: w.tool, arguments: { amount: 500 } };
    expect((await counted(w.key, held)).res.body.status).toBe("authorized");
    const relaxed = await counted(w.key, held);
    expect(relaxed.names).toEqual(["decision_write_warm"]);
    expect(relaxed.res.body).toMatchObject({ status: "authorized", policy: { relaxed: true } });
    await new Promise((r) => setTimeout(r, 1600));
    const after = await counted(w.key, held);
    // Still warm (the held call reads its approvers), and no longer relaxed.
    expect(after.names).toEqual(["approvers", "decision_write_warm"]);
    expect(after.res.body.status).toBe("approval_pending");
  });

  it("an empty bucket found by the warm write: 429 with Retry-After, nothing recorded or taken twice", async () => {
    const w = await warmWorld();
    const before = await actions(w);
    // Empty, with its refill starting a second from now (as after a burst on another replica).
    await db.pool.query(
      "update rate_limit_buckets set tokens = 0, refilled_at = clock_timestamp() + interval '1 second' where api_key_id = $1",
      [w.keyId],
    );
    const { res, names } = await counted(w.key, small(w));
    expect(names).toEqual(["decision_write_warm", "gateway_admission"]);
    expect(res.status).toBe(429);
    expect(res.body.code).toBe("RATE_LIMITED");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await actions(w)).toBe(before);
    const { rows } = await db.pool.query("select tokens from rate_limit_buckets where api_key_id = $1", [
      w.keyId,
    ]);
    expect(rows[0].tokens).toBe(0);
    // While it is out of tokens, the key's calls are refused by the admission read before any decision.
    const again = await counted(w.key, small(w));
    expect(again.names).toEqual(["gateway_admission"]);
    expect(again.res.status).toBe(429);
    expect(await actions(w)).toBe(before);
  });

  it("a repeat of an action another process recorded: the warm write finds its key and writes nothing; the answer is the action's", async () => {
    const w = await warmWorld();
    const other = await startTestGateway(db, { keyHashSecret: gw.keyHashSecret, defaultPlan: "enterprise" });
    try {
      const body = { ...small(w), idempotency_key: "recorded-elsewhere" };
      const first = await other.authorize(w.key, body);
      expect(first.body.status).toBe("authorized");
      const before = await actions(w);
      const { res, names } = await counted(w.key, body);
      expect(names).toEqual(["decision_write_warm", "gateway_admission", "action_view"]);
      expect(res.body).toEqual(first.body);
      expect(await actions(w)).toBe(before);
      // Known to this process now: a further repeat is read at once.
      expect((await counted(w.key, body)).names).toEqual(["gateway_admission", "action_view"]);
    } finally {
      await other.close();
    }
  });

  it("tools/call: a tool disabled since the process read it is refused from a read; the upstream is not called", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    const tool = await createMcpTool(db.pool, w.organizationId, {
      url: up.url,
      upstreamName: "refund",
      amountMapping: refundMapping,
    });
    const call = async () => {
      counting.sent.length = 0;
      const res = await fetch(`${gw.gateway.url}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${w.key}`,
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 7,
          method: "tools/call",
          params: { name: tool.name, arguments: { amount: 5 } },
        }),
      });
      const body = (await res.json()) as {
        id: number;
        result: { isError?: boolean; structuredContent?: { service?: { code?: string } } };
      };
      return { status: res.status, body, names: ofCalls(counting.sent).map((s) => s.name) };
    };
    expect((await call()).names[0]).toBe("gateway_admission");
    const warm = await call();
    expect(warm.names).toEqual(["decision_write_claimed_warm", "execution_result"]);
    expect(warm.body.result.isError).toBeFalsy();
    const ran = up.calls.refund ?? 0;
    const before = await actions(w);

    await db.pool.query("update tools set enabled = false where id = $1", [tool.id]);
    const refused = await call();
    expect(refused.names.slice(0, 2)).toEqual(["decision_write_claimed_warm", "gateway_admission"]);
    expect(refused.status).toBe(200);
    expect(refused.body.id).toBe(7);
    expect(refused.body.result.isError).toBe(true);
    // A disabled tool is not offered (SPEC 4.2): the call names no tool the agent may use.
    expect(refused.body.result.structuredContent?.service?.code).toBe("UNKNOWN_TOOL");
    expect(up.calls.refund ?? 0).toBe(ran);
    expect(await actions(w)).toBe(before);
  });
});
