/**
 * A tools/call's claim made in its decision's write (core/src/execution/claim-at-decision.ts):
 * recorded executing with its EXECUTION when nothing the claim re-checks changed since the
 * decision's context was read; otherwise recorded approved alone, and the claim of the recorded
 * decision closes it with the code it has always given. The context is read first and the change
 * made after, as a change committed between a Gateway's read and its write would be.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DecisionService, loadDecisionContext, PolicyCache } from "../../core/src/decision/index.js";
import { registerGatewayIdentity, type GatewayIdentity } from "../../core/src/identities/index.js";
import { claimExecution, claimWithDecision } from "../../core/src/execution/index.js";
import { NotificationHub } from "../../core/src/store/index.js";
import { canonicalJson } from "../../protocol/src/canonical/index.js";
import { generateSeed } from "../../protocol/src/evidence/index.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import {
  createAuthorizationWorld,
  createMcpTool,
  refundMapping,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";

let db: TestDatabase;
let identity: GatewayIdentity;
let hub: NotificationHub;
const keyHashSecret = randomBytes(32);

beforeAll(async () => {
  db = await createTestDatabase();
  identity = await registerGatewayIdentity(db.pool, generateSeed());
  hub = new NotificationHub(db.url, "claim-with-decision");
});
afterAll(async () => {
  await hub?.stop();
  await db?.drop();
});

/** A world with an MCP tool (no upstream is called here: only the records are looked at). */
async function world(): Promise<AuthorizationWorld & { mcpTool: string; serverId: string }> {
  const w = await createAuthorizationWorld(db.pool, keyHashSecret);
  const tool = await createMcpTool(db.pool, w.organizationId, {
    url: "http://127.0.0.1:9/mcp",
    upstreamName: "refund",
    amountMapping: refundMapping,
  });
  return { ...w, mcpTool: tool.name, serverId: tool.serverId };
}

/** Decide a tools/call of `w` on a context read before `change` ran. */
async function decideAfter(w: Awaited<ReturnType<typeof world>>, change: () => Promise<unknown>) {
  const service = new DecisionService({
    pool: db.pool,
    identity,
    defaultPlan: "enterprise",
    instanceId: "claim-test",
    hub,
  });
  const admitted = await service.admit(keyHashSecret, w.key, 1, null);
  if (!admitted.check.ok) throw new Error("the world's key is refused");
  const context = await loadDecisionContext(db.pool, {
    organizationId: w.organizationId,
    agentId: w.agentId,
    tool: w.mcpTool,
    defaultPlan: "enterprise",
  });
  await change();
  const args = { amount: 5 };
  const decided = await service.decide({
    key: admitted.check.key,
    tool: w.mcpTool,
    arguments: args,
    canonicalArguments: canonicalJson(args),
    idempotencyKey: null,
    waitSeconds: 0,
    slot: { release: () => undefined },
    context,
    execution: "gateway",
    claimWithDecision: claimWithDecision(identity, undefined),
  });
  if (decided.kind !== "recorded") throw new Error(`not recorded: ${decided.code}`);
  const { rows } = await db.pool.query<{ status: string; execution_object_id: string | null }>(
    "select status, execution_object_id from protected_actions where id = $1",
    [decided.view.id],
  );
  return { decided, stored: rows[0]!, args };
}

describe("the claim made with the decision", () => {
  it("records the allowed call executing, with its EXECUTION, when nothing changed", async () => {
    const w = await world();
    const { decided, stored } = await decideAfter(w, async () => undefined);
    expect(stored.status).toBe("executing");
    const plan = decided.claimed!;
    const execution = plan.path[plan.path.length - 1]!;
    expect(execution.body.type).toBe("EXECUTION");
    expect(stored.execution_object_id).toBe(execution.id);
    const objects = await db.pool.query<{ type: string }>(
      "select type from signed_objects where protected_action_id = $1 order by type",
      [decided.view.id],
    );
    expect(objects.rows.map((r) => r.type)).toEqual(["EXECUTION", "PROPOSAL", "TASK"]);
    expect(plan.upstream).toMatchObject({
      url: "http://127.0.0.1:9/mcp",
      tool: "refund",
      authorization: null,
    });
  });

  const changes: Array<{
    what: string;
    change: (w: Awaited<ReturnType<typeof world>>) => Promise<unknown>;
    code: string;
  }> = [
    {
      what: "the delegation was revoked",
      change: (w) =>
        db.pool.query("update delegations set revoked_at = now() where id = $1", [w.delegationId]),
      code: "VERIFICATION_FAILED",
    },
    {
      what: "the policy was stopped",
      change: (w) =>
        db.pool.query("update policies set emergency_stopped_at = now() where id = $1", [w.policyId]),
      code: "POLICY_CHANGED",
    },
    {
      what: "the tool was disabled",
      change: (w) =>
        db.pool.query("update tools set enabled = false where organization_id = $1 and exposed_name = $2", [
          w.organizationId,
          w.mcpTool,
        ]),
      code: "UPSTREAM_CHANGED",
    },
    {
      what: "the tool was bound elsewhere, not yet authorized",
      change: (w) =>
        db.pool.query(
          `update tools set binding = jsonb_set(binding, '{upstream_name}', '"other"')
            where organization_id = $1 and exposed_name = $2`,
          [w.organizationId, w.mcpTool],
        ),
      code: "UPSTREAM_CHANGED",
    },
    {
      what: "the tool was bound elsewhere and that binding authorized",
      change: (w) =>
        db.pool.query(
          `update tools set binding = jsonb_set(binding, '{upstream_name}', '"other"'),
                            authorized_binding = jsonb_set(binding, '{upstream_name}', '"other"')
            where organization_id = $1 and exposed_name = $2`,
          [w.organizationId, w.mcpTool],
        ),
      code: "UPSTREAM_CHANGED",
    },
    {
      what: "the MCP server was disabled",
      change: (w) => db.pool.query("update mcp_servers set status = 'disabled' where id = $1", [w.serverId]),
      code: "UPSTREAM_CHANGED",
    },
  ];

  for (const c of changes) {
    it(`when ${c.what} after the read: records the decision alone, and the claim closes it with ${c.code}`, async () => {
      const w = await world();
      const { decided, stored, args } = await decideAfter(w, () => c.change(w));
      expect(decided.claimed).toBeUndefined();
      expect(stored).toEqual({ status: "approved", execution_object_id: null });
      const claim = await claimExecution(db.pool, identity, {
        actionId: decided.view.id,
        arguments: args,
        credentialKey: undefined,
        policies: new PolicyCache(),
        now: new Date(),
      });
      expect(claim).toMatchObject({ ok: false, code: c.code });
      const executions = await db.pool.query(
        "select 1 from signed_objects where protected_action_id = $1 and type = 'EXECUTION'",
        [decided.view.id],
      );
      expect(executions.rowCount).toBe(0);
    });
  }

  it("leaves a service-aware server's call to its own claim (the server's identity is read then)", async () => {
    const w = await world();
    const { decided, stored } = await decideAfter(w, async () => undefined);
    expect(stored.status).toBe("executing");
    const sa = await world();
    await db.pool.query("update mcp_servers set server_kid = $2 where id = $1", [
      sa.serverId,
      `kid_${randomBytes(16).toString("hex")}`,
    ]);
    const other = await decideAfter(sa, async () => undefined);
    expect(decided.claimed).toBeDefined();
    expect(other.decided.claimed).toBeUndefined();
    expect(other.stored.status).toBe("approved");
  });
});
