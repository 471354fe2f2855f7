/**
 * The setup checklist's states (dashboard/src/routes/orgs/setup/steps.ts) from the Cloud API's
 * answers: what "done" means for each step, which earlier step blocks it, and which steps a role
 * sees. first-hour.test.ts reads the same states in Chromium as a fresh organization is set up;
 * this covers the cases that walk does not (other roles, a decision-only integration, a key
 * bound by someone else, a disabled agent).
 */
import { describe, expect, it } from "vitest";
import type { PolicyStatusItem, Role } from "../../protocol/src/wire/index.js";
import {
  holdsCalls,
  progressOf,
  setupSteps,
  type SetupData,
} from "../../dashboard/src/routes/orgs/setup/steps.js";

const agentId = "7d4c7a3e-54a0-4d65-9c5c-2f5f3d0f9a11";
const policyId = "0b7e1f2c-3a4d-4e5f-8a9b-0c1d2e3f4a5b";
const brief = { id: "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d", number: 1, digest: "sha256:00" };

const nothing: SetupData = {
  mcpServers: [],
  tools: [],
  policies: [],
  agents: [],
  gatewayKeys: [],
  delegations: {},
  principal: true,
  ownIdentities: [],
  activeHoldsCalls: {},
};

const status = (over: Partial<PolicyStatusItem>): PolicyStatusItem => ({
  policy_id: policyId,
  name: "refunds",
  stage: "none",
  active_version: null,
  shadow_version: null,
  draft_version: null,
  unapprovable: [],
  emergency_stopped: false,
  ...over,
});

const everything: SetupData = {
  mcpServers: [{ status: "active" }],
  tools: [{ enabled: true }],
  policies: [status({ stage: "enforce", active_version: brief })],
  agents: [{ id: agentId, status: "active", policy: { id: policyId, name: "refunds" } }],
  gatewayKeys: [{ state: "active", agent_id: agentId }],
  delegations: { [agentId]: [{ state: "active" }] },
  principal: true,
  ownIdentities: [{ status: "active" }],
  activeHoldsCalls: { [policyId]: true },
};

const states = (data: SetupData, role: Role = "owner") =>
  Object.fromEntries(setupSteps(data, role).map((s) => [s.id, s.state]));

describe("the setup checklist's steps", () => {
  it("in a new organization: nothing done, each step after a missing one blocked", () => {
    expect(states(nothing)).toEqual({
      integration: "to_do",
      tool: "blocked",
      policy: "to_do",
      agent: "blocked",
      gateway_key: "blocked",
      delegation: "blocked",
      activation: "blocked",
      approver_key: "to_do",
    });
    const tool = setupSteps(nothing, "owner").find((s) => s.id === "tool")!;
    expect(tool.sentence).toBe("Register an MCP server or an integration first.");
    expect(progressOf(setupSteps(nothing, "owner"))).toEqual({ done: 0, total: 8, complete: false });
  });

  it("all done when the Cloud API answers every step, and complete", () => {
    expect(Object.values(states(everything))).toEqual(Array(8).fill("done"));
    expect(progressOf(setupSteps(everything, "owner"))).toEqual({ done: 8, total: 8, complete: true });
  });

  it("counts a decision-only integration, not a disabled one", () => {
    expect(states({ ...nothing, mcpServers: [{ status: "active" }] }).integration).toBe("done");
    expect(states({ ...nothing, mcpServers: [{ status: "disabled" }] }).integration).toBe("to_do");
  });

  it("needs an agent that is active and under a policy; its key and delegation count only then", () => {
    const disabled = { ...everything, agents: [{ ...everything.agents[0]!, status: "disabled" as const }] };
    expect(states(disabled)).toMatchObject({ agent: "to_do", gateway_key: "blocked", delegation: "blocked" });
    const revoked = { ...everything, gatewayKeys: [{ state: "revoked" as const, agent_id: agentId }] };
    expect(states(revoked).gateway_key).toBe("to_do");
  });

  it("blocks the delegation on the principal, and links to the Principal page then", () => {
    const step = setupSteps({ ...everything, delegations: {}, principal: false }, "owner").find(
      (s) => s.id === "delegation",
    )!;
    expect(step.state).toBe("blocked");
    expect(step.link.to).toBe("/principal");
  });

  it("counts a draft version as a written policy, only an active one as activation", () => {
    expect(states({ ...nothing, policies: [status({ draft_version: brief })] })).toMatchObject({
      policy: "done",
      activation: "to_do",
    });
  });

  it("counts an approver's key bound by someone else through the policy status, not a policy that holds nothing", () => {
    const others = { ...everything, ownIdentities: [] };
    expect(states(others, "admin").approver_key).toBe("done");
    const gap = {
      version_id: brief.id,
      rule_id: "large",
      roles: ["approver"],
      approver_count: 1,
      code: "NO_APPROVERS" as const,
      members_with_role: 0,
    };
    const unmet = { ...others, policies: [status({ active_version: brief, unapprovable: [gap] })] };
    expect(states(unmet, "admin").approver_key).toBe("to_do");
    expect(states({ ...others, activeHoldsCalls: { [policyId]: false } }, "admin").approver_key).toBe(
      "to_do",
    );
    // A developer's own key proves nothing: they may not approve (and do not see the step).
    expect(states(others, "developer").approver_key).toBeUndefined();
  });

  it("lists only the steps the role can take", () => {
    const ids = (role: Role) => setupSteps(nothing, role).map((s) => s.id);
    expect(ids("admin")).toHaveLength(8);
    expect(ids("developer")).toEqual(["integration", "tool", "policy", "agent", "gateway_key"]);
    expect(ids("approver")).toEqual(["approver_key"]);
    expect(ids("viewer")).toEqual([]);
  });

  it("reads whether a version holds calls from its document, checked, never cast", () => {
    expect(holdsCalls({ default_effect: "deny", rules: [{ id: "r", effect: "require_approval" }] })).toBe(
      true,
    );
    expect(holdsCalls({ default_effect: "require_approval", rules: [] })).toBe(true);
    expect(holdsCalls({ default_effect: "deny", rules: [{ id: "r", effect: "allow" }] })).toBe(false);
    expect(holdsCalls("not a document")).toBe(false);
    expect(holdsCalls({ rules: "not a list" })).toBe(false);
  });
});
