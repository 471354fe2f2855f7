/**
 * The view of a verdict shared by the Gateway and the dry run: statuses by
 * execution mode, lifetimes never past the delegation (SPEC 2.1), denials
 * with their code and the approval rule's explanation when no approver
 * resolves. Pure: a context literal, a compiled policy, decideCall.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy, parsePolicy } from "@countersign/protocol/policy";
import { answerFor } from "./answers.js";
import { deniedForApprovers } from "./approvers.js";
import type { DecisionContext } from "./context.js";
import { decideCall } from "./pipeline.js";
import { NOTHING_RECORDED, verdictOutcome, verdictView, type RecordedVerdict } from "./verdict-view.js";

const now = new Date("2026-11-23T12:00:00.000Z");
const hour = 3600_000;

const document = {
  revision: 1,
  default_effect: "deny",
  rules: [
    {
      id: "big",
      effect: "require_approval",
      conditions: [{ field: "amount", op: "gt", threshold: "100", currency: "EUR" }],
      approvers: { roles: ["admin"], count: 1 },
      approval_ttl_seconds: 7200,
    },
    {
      id: "small",
      effect: "allow",
      conditions: [{ field: "amount", op: "lte", threshold: "100", currency: "EUR" }],
    },
  ],
};
const policy = compilePolicy(parsePolicy(document));

function context(
  delegationEndsInMs: number,
  serverKind: "mcp" | "decision_only" = "decision_only",
): DecisionContext {
  return {
    organization: { id: "org", approvalTtlSeconds: 3600, agentDisclosure: "rule", plan: "enterprise" },
    agent: { id: "agent", name: "agent", status: "active", policyId: "p" },
    tool: {
      id: "tool",
      exposedName: "refund",
      upstreamName: "refund",
      action: "payments.refund",
      serverKind,
      enabled: true,
      bindingAuthorized: true,
      binding: null,
      amountMapping: { amount_path: "amount", currency: "EUR" },
      server: null,
    },
    policy: {
      id: "p",
      name: "refunds",
      disclosure: "inherit",
      emergencyStopped: false,
      versionId: "v",
      version: 1,
      digest: "sha256:00",
    },
    principal: { kid: "kid", status: "active", documents: [] },
    delegations: [
      {
        id: "d",
        objectId: "o",
        permissions: ["payments.*"],
        expiresAt: new Date(now.getTime() + delegationEndsInMs).toISOString(),
        // Signed by the current principal ("kid"): only its delegations grant. The members the
        // evidence workflow's delegation rule reads: for this agent, issued before the call.
        object: {
          body: {
            actor: "kid",
            issued_at: new Date(now.getTime() - 60_000).toISOString(),
            payload: {
              agent_id: "agent",
              permissions: ["payments.*"],
              expires_at: new Date(now.getTime() + delegationEndsInMs).toISOString(),
            },
          },
        } as never,
      },
    ],
    observeWindow: null,
    existingActionId: null,
  };
}

function verdictFor(ctx: DecisionContext, amount: unknown): RecordedVerdict {
  const execution = ctx.tool!.serverKind === "decision_only" ? "caller" : "gateway";
  const v = decideCall(
    ctx,
    { tool: "refund", arguments: { amount }, environment: "live", execution },
    policy,
    now,
  );
  if (v.kind === "refused") throw new Error(`refused ${v.code}`);
  return v;
}

const call = { execution: "caller" as const, requestFingerprint: "f", argumentsDigest: "sha256:aa" };

describe("the view of a verdict", () => {
  it("an allowed call is authorized for its caller and approved for the Gateway, for the organization's lifetime", () => {
    const ctx = context(30 * 24 * hour);
    const v = verdictFor(ctx, 5);
    expect(verdictOutcome(ctx, v, "caller", now)).toMatchObject({
      status: "authorized",
      decisionCode: null,
      expiresAt: new Date(now.getTime() + hour),
      ruleId: "small",
      policyEffect: "allow",
    });
    expect(verdictOutcome(ctx, v, "gateway", now)).toMatchObject({
      status: "approved",
      expiresAt: new Date(now.getTime() + hour),
    });
  });

  it("an approval request lasts the rule's lifetime; neither it nor an authorization outlives the delegation", () => {
    const long = context(30 * 24 * hour);
    expect(verdictOutcome(long, verdictFor(long, 500), "caller", now)).toMatchObject({
      status: "pending_approval",
      decisionCode: "APPROVAL_PENDING",
      expiresAt: new Date(now.getTime() + 2 * hour),
    });
    const short = context(10 * 60_000);
    const ends = new Date(now.getTime() + 10 * 60_000);
    expect(verdictOutcome(short, verdictFor(short, 500), "caller", now).expiresAt).toEqual(ends);
    expect(verdictOutcome(short, verdictFor(short, 5), "caller", now).expiresAt).toEqual(ends);
    const view = verdictView(
      short,
      verdictOutcome(short, verdictFor(short, 500), "caller", now),
      call,
      NOTHING_RECORDED,
    );
    expect(view.approval).toEqual({ id: "", status: "pending", expiresAt: ends, decisionObjectId: null });
  });

  it("a denial keeps its code, detail and agent explanation and no expiry; an invalid amount is denied before the policy", () => {
    const ctx = context(30 * 24 * hour);
    const invalid = verdictOutcome(ctx, verdictFor(ctx, "not a number"), "caller", now);
    expect(invalid).toMatchObject({
      status: "denied",
      decisionCode: "INVALID_AMOUNT",
      expiresAt: null,
      ruleId: null,
      enforcement: null,
    });
    const answer = answerFor(verdictView(ctx, invalid, call, NOTHING_RECORDED), now);
    expect(answer.body).toMatchObject({
      allowed: false,
      status: "denied",
      code: "INVALID_AMOUNT",
      protected_action_id: "",
    });
  });

  it("an approval whose approvers do not resolve is denied with their code and the rule's explanation, marked denied", () => {
    const ctx = context(30 * 24 * hour);
    const v = verdictFor(ctx, 500);
    if (v.kind !== "approval") throw new Error("expected an approval");
    const denied = deniedForApprovers(v, { ok: false, code: "NO_APPROVERS", detail: "nobody" });
    const outcome = verdictOutcome(ctx, denied, "caller", now);
    expect(outcome).toMatchObject({
      status: "denied",
      decisionCode: "NO_APPROVERS",
      decisionDetail: "nobody",
      ruleId: "big",
      policyEffect: "require_approval",
      expiresAt: null,
    });
    expect(outcome.agentExplanation).toMatchObject({ decision: "denied" });
    expect(v.evaluation.agentExplanation).not.toMatchObject({ decision: "denied" });
  });
});
