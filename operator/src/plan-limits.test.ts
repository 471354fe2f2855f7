/**
 * Plan limits under GitOps and what an invalid Policy leaves (issue 44), against a real
 * kube-apiserver and a real Cloud API on PostgreSQL, with no admission webhook registered (as
 * while every operator replica is away with failurePolicy Ignore):
 * - an invalid Policy shows PolicyInvalid with the path in the resource, the form `kubectl apply`
 *   gives at admission, and leaves no policy record in the Cloud API, however many passes run;
 *   fixed, it is created with its document as version 1;
 * - on the Developer plan (5 agents), a sixth Agent is refused PLAN_LIMIT_EXCEEDED naming `agents`;
 *   after `kubectl delete` of four Agents, it becomes Ready.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ControlPlane } from "../../test/control-plane/index.js";
import { applyObject, conditionOf, eventually, kubectlJson, kubectlOk } from "../../test/fixtures/kube.js";
import { startOperatorWorld, type OperatorWorld } from "../../test/fixtures/operator-world.js";

const namespace = "plan-limits";
let world: OperatorWorld;
let plane: ControlPlane;

const get = (kind: string, name: string) =>
  kubectlJson(plane, ["get", `${kind}.countersign.dev/${name}`, "-n", namespace]);
const apply = (o: unknown) => applyObject(plane, o);
const object = (kind: string, name: string, spec: Record<string, unknown>) => ({
  apiVersion: "countersign.dev/v1alpha1",
  kind,
  metadata: { name, namespace },
  spec,
});
const ready = (kind: string, name: string) =>
  eventually(`${kind} ${name} Ready`, async () => {
    const o = await get(kind, name);
    return conditionOf(o, "Ready")?.status === "True" && o;
  });

async function policyNames(): Promise<string[]> {
  const res = await world.owner.get(`/orgs/${world.orgId}/policies?limit=100`);
  expect(res.status).toBe(200);
  return res.body.items.map((p: { name: string }) => p.name);
}

beforeAll(async () => {
  world = await startOperatorWorld({ namespace });
  plane = world.plane;
  await world.db.pool.query("update organizations set plan = 'developer' where id = $1", [world.orgId]);
  await apply(object("Organization", "acme", { organizationId: world.orgId }));
  world.startOperator("operator-plan-limits");
  await ready("organization", "acme");
}, 240_000);

afterAll(async () => {
  await world?.stop();
});

describe("under GitOps", { timeout: 180_000 }, () => {
  it("an invalid Policy admitted without the webhook leaves no record, and says where the problem is as admission does", async () => {
    const invalid = {
      default_effect: "deny",
      rules: [{ id: "r1", effect: "permit-everything", tools: ["x.y"] }],
    };
    await apply(object("Policy", "broken", { document: invalid }));
    const refused = await eventually("PolicyInvalid", async () => {
      const o = await get("policy", "broken");
      return conditionOf(o, "Ready")?.reason === "PolicyInvalid" && o;
    });
    const message = conditionOf(refused, "Ready")!.message;
    expect(message).toContain("POLICY_INVALID");
    expect(message).toContain("spec.document.rules.0.effect:");
    expect(message).not.toContain("permit-everything");
    expect(refused.status.policyId).toBeUndefined();
    // Passes keep running (every 2 s) and none of them leaves a record.
    await new Promise((r) => setTimeout(r, 5000));
    expect(await policyNames()).not.toContain("broken");

    const valid = { default_effect: "deny", rules: [{ id: "r1", effect: "allow", tools: ["x.y"] }] };
    await apply(object("Policy", "broken", { document: valid }));
    const fixed = await ready("policy", "broken");
    expect(fixed.status.activeVersion.number).toBe(1);
    expect(await policyNames()).toContain("broken");
    const detail = await world.owner.get(`/orgs/${world.orgId}/policies/${fixed.status.policyId}`);
    expect(detail.body.versions.map((v: { number: number }) => v.number)).toEqual([1]);
  });

  it("deleting Agents frees plan room: the Agent refused at the cap becomes Ready", async () => {
    for (let i = 0; i < 5; i++) await apply(object("Agent", `bot-${i}`, {}));
    for (let i = 0; i < 5; i++) await ready("agent", `bot-${i}`);
    await apply(object("Agent", "bot-5", {}));
    const refused = await eventually("sixth refused", async () => {
      const o = await get("agent", "bot-5");
      return conditionOf(o, "Ready")?.status === "False" && o;
    });
    expect(conditionOf(refused, "Ready")!.message).toContain("PLAN_LIMIT_EXCEEDED");
    expect(conditionOf(refused, "Ready")!.message).toContain("agents that are not disabled");

    await kubectlOk(plane, [
      "delete",
      "-n",
      namespace,
      "agent.countersign.dev/bot-0",
      "agent.countersign.dev/bot-1",
    ]);
    await kubectlOk(plane, [
      "delete",
      "-n",
      namespace,
      "agent.countersign.dev/bot-2",
      "agent.countersign.dev/bot-3",
    ]);
    const admitted = await eventually(
      "sixth Ready",
      async () => {
        const o = await get("agent", "bot-5");
        return conditionOf(o, "Ready")?.status === "True" && o;
      },
      120_000,
    );
    const agent = await world.owner.get(`/orgs/${world.orgId}/agents/${admitted.status.agentId}`);
    expect(agent.body.agent.status).toBe("active");
    const usage = await world.owner.get(`/orgs/${world.orgId}/usage`);
    expect(usage.body.agents).toEqual({ used: 2, limit: 5 });
  });
});
