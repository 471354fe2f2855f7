import { describe, expect, it } from "vitest";
import { permissionGrants, checkDelegation } from "./delegation.js";
import { deriveOutcome } from "./receipt.js";
import { at, buildScenario, scenarioSigners, type ScenarioName } from "./scenario.test-support.js";
import type { BodyOf, SignedObject, StepBody } from "./signed-object.js";
import { deriveSummary } from "./summary.js";
import { mayFollow } from "./chain.js";

const k = scenarioSigners();
const pathOf = (name: ScenarioName) => {
  const b = buildScenario(name);
  const head = b.receipt.body.payload.head;
  const steps = b.objects.filter(
    (o) => o.body.type !== "DELEGATION" && o.body.type !== "REVOCATION" && o.body.type !== "ATTESTATION",
  );
  expect(steps[steps.length - 1]!.id).toBe(head);
  return steps as SignedObject<StepBody>[];
};

describe("outcome rules (SPEC 3.1, 2.8)", () => {
  it.each([
    ["approved-execution", "execution", "succeeded", ["TASK", "PROPOSAL", "APPROVAL", "EXECUTION", "RESULT"]],
    ["allowed-execution-failed", "execution", "failed", ["TASK", "PROPOSAL", "EXECUTION", "RESULT"]],
    ["rejected", "closure", "final", ["TASK", "PROPOSAL", "REJECTION"]],
    ["cancelled", "closure", "final", ["TASK", "CANCELLATION"]],
    ["authorization-pending", "authorization", "pending", ["TASK", "PROPOSAL"]],
    ["authorization-granted", "authorization", "granted", ["TASK", "PROPOSAL", "APPROVAL"]],
  ] as const)("%s: %s / %s over %j", (name, kind, outcome, types) => {
    const path = pathOf(name);
    expect(path.map((s) => s.body.type)).toEqual(types);
    expect(deriveOutcome(path)).toEqual({ kind, outcome });
    expect(buildScenario(name).receipt.body.payload).toMatchObject({ kind, outcome });
  });

  it("gives no receipt for a TASK alone, an EXECUTION head, or a decision-only head on a Gateway-run call", () => {
    const path = pathOf("approved-execution");
    expect(deriveOutcome(path.slice(0, 1))).toBeUndefined();
    expect(deriveOutcome(path.slice(0, 4))).toBeUndefined();
    expect(deriveOutcome(path.slice(0, 2))).toBeUndefined();
    expect(deriveOutcome(pathOf("authorization-granted").slice(0, 3))).toEqual({
      kind: "authorization",
      outcome: "granted",
    });
  });

  it("follows the workflow graph", () => {
    expect(mayFollow("TASK", null)).toBe(true);
    expect(mayFollow("EXECUTION", "TASK")).toBe(false);
    expect(mayFollow("CANCELLATION", "PROPOSAL")).toBe(false);
    expect(mayFollow("RESULT", "EXECUTION")).toBe(true);
  });
});

describe("summary derived from the signed steps (SPEC 2.8 table)", () => {
  it("names each step's signer, object and principal", () => {
    const path = pathOf("approved-execution");
    const [task, proposal, approval, execution, result] = path;
    const s = deriveSummary(path);
    expect(s).toMatchObject({
      requested_by: k.gateway.kid,
      request: task!.id,
      requested_on_behalf_of: k.principal.kid,
      proposed_by: k.gateway.kid,
      proposal: proposal!.id,
      approved_by: k.person.kid,
      approval: approval!.id,
      approved_on_behalf_of: k.principal.kid,
      executed_by: k.gateway.kid,
      execution: execution!.id,
      result: result!.id,
      executed_on_behalf_of: k.principal.kid,
      result_status: "succeeded",
      result_digest: (result!.body as BodyOf<"RESULT">).payload.result_digest,
    });
    expect(s.steps.map((x) => x.type)).toEqual(["TASK", "PROPOSAL", "APPROVAL", "EXECUTION", "RESULT"]);
    expect(s.steps[0]!.delegations).toEqual(task!.body.delegations);
    expect(s.steps[2]).not.toHaveProperty("delegations");
  });

  it("leaves out on_behalf_of for a cancellation, which the principal signs for itself", () => {
    const s = deriveSummary(pathOf("cancelled"));
    expect(s.cancelled_by).toBe(k.principal.kid);
    expect(s).not.toHaveProperty("cancelled_on_behalf_of");
    expect(s.steps[1]).toEqual({ type: "CANCELLATION", id: s.cancellation, actor: k.principal.kid });
  });
});

describe("delegations", () => {
  it.each([
    ["*", "payments.refund", true],
    ["payments.*", "payments.refund", true],
    ["payments.*", "payments", false],
    ["payments.*", "paymentsx.refund", false],
    ["payments.refund", "payments.refund", true],
    ["payments.refund", "payments.refunds", false],
  ])("%s grants %s: %s", (permission, action, granted) => {
    expect(permissionGrants(permission, action)).toBe(granted);
  });

  const bundle = buildScenario("approved-execution", { revokedAt: at(30) });
  const delegation = bundle.objects.find((o) => o.body.type === "DELEGATION") as SignedObject<
    BodyOf<"DELEGATION">
  >;
  const revocations = bundle.objects.filter((o) => o.body.type === "REVOCATION") as SignedObject<
    BodyOf<"REVOCATION">
  >[];
  const use = { principal: k.principal.kid, agentId: "agt_refunds", action: "payments.refund", at: at(10) };

  it("holds before its revocation and expiry, for its agent, principal and actions only", () => {
    expect(checkDelegation(delegation, use, revocations)).toEqual({ ok: true });
    expect(checkDelegation(delegation, { ...use, at: at(30) }, revocations)).toMatchObject({
      code: "DELEGATION_REVOKED",
    });
    expect(checkDelegation(delegation, { ...use, at: at(30 * 86400) }, [])).toMatchObject({
      code: "DELEGATION_EXPIRED",
    });
    expect(checkDelegation(delegation, { ...use, agentId: "agt_other" }, [])).toMatchObject({
      code: "DELEGATION_INVALID",
    });
    expect(checkDelegation(delegation, { ...use, principal: k.outsider.kid }, [])).toMatchObject({
      code: "DELEGATION_INVALID",
    });
    expect(checkDelegation(delegation, { ...use, action: "crm.write" }, [])).toMatchObject({
      code: "DELEGATION_NOT_PERMITTED",
    });
    expect(checkDelegation(delegation, { ...use, at: at(-2 * 86400) }, [])).toMatchObject({
      code: "DELEGATION_INVALID",
    });
  });
});
