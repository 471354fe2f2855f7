/**
 * SPEC 2.9's switch for detailed explanations (COUNTERSIGN_DETAILED_EXPLANATIONS, docs/configuration.md):
 * on (the default) a recorded decision keeps the full explanation people see, every rule with what
 * held; off it keeps the minimal one (reason `detail_off`). The decision and what the agent is told
 * are the same either way. Two Gateway replicas of one installation on one real PostgreSQL, one
 * with the switch off, decide the same call; the dry run follows the same switch.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PolicyCache } from "../../core/src/decision/index.js";
import { dryRun } from "../../api/src/dry-run/dry-run.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import { createAuthorizationWorld, type AuthorizationWorld } from "../fixtures/authorization.js";
import { startTestGateway, type TestGateway } from "./harness.js";

let db: TestDatabase;
let detailed: TestGateway;
let minimal: TestGateway;
let world: AuthorizationWorld;

beforeAll(async () => {
  db = await createTestDatabase();
  detailed = await startTestGateway(db);
  minimal = await startTestGateway(db, {
    keyHashSecret: detailed.keyHashSecret,
    signingKey: detailed.signingKey,
    detailedExplanations: false,
  });
  world = await createAuthorizationWorld(db.pool, detailed.keyHashSecret);
});
afterAll(async () => {
  await detailed?.close();
  await minimal?.close();
  await db?.drop();
});

async function storedExplanation(actionId: string) {
  const { rows } = await db.pool.query("select explanation from protected_actions where id = $1", [actionId]);
  return rows[0].explanation;
}

// Over the policy's hard cap (10000 EUR): denied by rule "hard-cap".
const call = (order: string) => ({ tool: world.tool, arguments: { order, amount: 20000 } });

describe("COUNTERSIGN_DETAILED_EXPLANATIONS", () => {
  it("on: the recorded explanation lists every rule with what held", async () => {
    const res = await detailed.authorize(world.key, call("d-1"));
    expect(res.body).toMatchObject({ status: "denied", code: "POLICY_DENIED" });
    const explanation = await storedExplanation(res.body.protected_action_id);
    expect(explanation).toMatchObject({
      minimal: false,
      decided_by: { rule_id: "hard-cap" },
      policy_effect: "deny",
    });
    expect(explanation.rules.map((r: { id: string; matched: boolean }) => [r.id, r.matched])).toEqual([
      ["hard-cap", true],
      ["needs-approval", true],
      ["small", false],
    ]);
  });

  it("off: the minimal explanation (detail_off), the same decision, and the same answer to the agent", async () => {
    const on = await detailed.authorize(world.key, call("d-2"));
    const off = await minimal.authorize(world.key, call("d-3"));
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ status: "denied", code: "POLICY_DENIED" });
    const { protected_action_id: a, ...agentOn } = on.body;
    const { protected_action_id: b, ...agentOff } = off.body;
    expect(a).not.toBe(b);
    expect(agentOff).toEqual(agentOn);
    const explanation = await storedExplanation(off.body.protected_action_id);
    expect(explanation).toMatchObject({
      minimal: true,
      reason: "detail_off",
      decided_by: { rule_id: "hard-cap" },
      policy_effect: "deny",
      decision: "denied",
    });
    expect(explanation).not.toHaveProperty("rules");
    expect(explanation).not.toHaveProperty("call");
  });

  it("the dry run follows the same switch", async () => {
    const input = {
      organizationId: world.organizationId,
      agentId: world.agentId,
      tool: world.tool,
      arguments: { order: "d-4", amount: 20000 },
      environment: "live" as const,
      idempotencyKey: null,
      policyVersionId: null,
      ignoreObserveWindow: false,
      defaultPlan: "developer" as const,
      now: new Date(),
    };
    const on = await dryRun(db.pool, new PolicyCache(), input);
    const off = await dryRun(db.pool, new PolicyCache(), { ...input, detailedExplanations: false });
    expect(on.explanation).toMatchObject({ minimal: false });
    expect(off.explanation).toMatchObject({ minimal: true, reason: "detail_off" });
    expect(off.agent_would_receive).toEqual(on.agent_would_receive);
  });
});
