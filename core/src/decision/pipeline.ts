import type { GatewayCode } from "@countersign/protocol/errors";
import {
  checkDelegation,
  permissionGrants,
  timestamp,
  type BodyOf,
  type SignedObject,
} from "@countersign/protocol/evidence";
import {
  agentExplanation,
  decide,
  effectiveDisclosure,
  fullExplanation,
  type AgentExplanation,
  type CompiledPolicy,
  type Decision,
  type DecisionFacts,
  type Explanation,
} from "@countersign/protocol/policy";
import { amountMapping, mapAmount, type MappedAmount } from "./amount.js";
import type { DecisionContext } from "./context.js";

/** The installation's choices that shape what a decision records, never the decision itself. */
export interface PipelineOptions {
  /** COUNTERSIGN_DETAILED_EXPLANATIONS (SPEC 2.9); false: people get the minimal explanation. Default true. */
  detailedExplanations?: boolean;
}

/** One call as the pipeline sees it, after the HTTP-level checks. */
export interface CallInput {
  tool: string;
  arguments: Record<string, unknown>;
  environment: "live" | "test";
  /** caller: POST /v1/authorize (decision-only); gateway: /mcp tools/call. */
  execution: "caller" | "gateway";
}

type Tool = NonNullable<DecisionContext["tool"]>;
type Delegation = DecisionContext["delegations"][number];

/** The policy decision recorded on an action (SPEC 2.6) and what explains it (2.9). */
export interface Evaluation {
  policy: { id: string; name: string; versionId: string; version: number; digest: string };
  decision: Decision;
  facts: DecisionFacts;
  enforcement: "enforce" | "observe";
  /** True when an observe window turned a restricting decision into an allow. */
  relaxed: boolean;
  observeWindow: { id: string; endsAt: string } | null;
  agentExplanation: AgentExplanation | null;
  explanation: Explanation;
}

/** What the facts of a call are, as far as the pipeline got. */
export interface CallFacts {
  tool: Tool;
  amount: MappedAmount | null;
  /** The delegation the TASK relies on: the granting one that lasts longest. */
  delegation: Delegation | null;
  principalKid: string | null;
}

/** The facts of a call that passed every check before the policy. */
export interface DecidedFacts {
  tool: Tool;
  amount: MappedAmount | null;
  delegation: Delegation;
  principalKid: string;
}

export type Verdict =
  /** Refused before anything is recorded (invalid_request, TOOL_REAUTHORIZATION_REQUIRED). */
  | { kind: "refused"; code: GatewayCode; detail: string }
  /** Recorded as a denied action. */
  | {
      kind: "denied";
      code: GatewayCode;
      detail: string;
      facts: CallFacts;
      evaluation: Evaluation | null;
      agentExplanation: AgentExplanation | null;
    }
  | { kind: "allowed"; facts: DecidedFacts; evaluation: Evaluation }
  | {
      kind: "approval";
      facts: DecidedFacts;
      evaluation: Evaluation;
      roles: string[];
      approverCount: number;
      ttlSeconds: number;
    };

/** A deny decision for explanations of checks that stop a call before or beside the policy. */
const CHECK_DECISION: Decision = Object.freeze({
  effect: "deny",
  rule_id: null,
  rule_index: -1,
  approvers: null,
  approval_ttl_seconds: null,
  description: null,
  guard: false,
  relaxable: false,
}) as Decision;

/**
 * The decision pipeline of SPEC 1.7, pure: no I/O, no clock but `now`, no
 * signatures. The Gateway (both modes) and the Cloud API's dry run call it
 * with the same context and get the same verdict. Order: the tool
 * (UNKNOWN_TOOL, mode, binding), its configuration and amount, the
 * principal, the delegation, the policy (none, emergency stop, evaluation),
 * observe windows. Approver resolution and the plan limit need the database
 * and follow in the caller.
 */
export function decideCall(
  ctx: DecisionContext,
  call: CallInput,
  policy: CompiledPolicy | null | undefined,
  now: Date,
  options: PipelineOptions = {},
): Verdict {
  const tool = ctx.tool;
  if (!tool || !tool.enabled)
    return { kind: "refused", code: "UNKNOWN_TOOL", detail: `no enabled tool is named "${call.tool}"` };
  if (call.execution === "caller" && tool.serverKind !== "decision_only") {
    return {
      kind: "refused",
      code: "NOT_DECISION_ONLY",
      detail: `"${tool.exposedName}" is run by the Gateway through /mcp, not authorized for the caller`,
    };
  }
  if (call.execution === "gateway" && tool.serverKind === "decision_only") {
    return {
      kind: "refused",
      code: "DECISION_ONLY_TOOL",
      detail: `"${tool.exposedName}" is a decision-only tool: ask POST /v1/authorize`,
    };
  }
  if (!tool.bindingAuthorized) {
    return {
      kind: "refused",
      code: "TOOL_REAUTHORIZATION_REQUIRED",
      detail: `what "${tool.exposedName}" is bound to changed; an owner or admin must authorize it again`,
    };
  }

  const facts: CallFacts = { tool, amount: null, delegation: null, principalKid: null };
  const denied = (code: GatewayCode, detail: string, check?: string): Verdict => ({
    kind: "denied",
    code,
    detail,
    facts,
    evaluation: null,
    agentExplanation: check ? checkExplanation(ctx, policy, facts, call, check) : null,
  });

  let mapping = null;
  if (tool.amountMapping !== null && tool.amountMapping !== undefined) {
    const parsed = amountMapping.safeParse(tool.amountMapping);
    if (!parsed.success)
      return denied("INVALID_TOOL_CONFIGURATION", `the amount mapping of "${tool.exposedName}" is not valid`);
    mapping = parsed.data;
  }
  const amount = mapAmount(mapping, call.arguments);
  if (amount === "invalid")
    return denied(
      "INVALID_AMOUNT",
      `the arguments do not carry an exact amount and currency where "${tool.exposedName}" maps them`,
    );
  facts.amount = amount;

  if (!ctx.principal)
    return denied(
      "NO_PRINCIPAL",
      "the organization has no principal identity; no agent can be authorized until an owner registers one",
    );
  if (ctx.principal.status === "equivocated") {
    return denied(
      "IDENTITY_EQUIVOCATION",
      "the organization principal's identity documents conflict; it is permanently invalid until an owner replaces it",
    );
  }
  facts.principalKid = ctx.principal.kid;

  const at = now.getTime();
  // Only the current principal's delegations grant (SPEC 2.1: it signs them): once an owner replaces
  // the principal, the old key's delegations no longer authorize, and no evidence ever names a
  // delegation its verifier would refuse as "not signed by the principal the step acts for".
  const principalKid = ctx.principal.kid;
  const granting = ctx.delegations.filter(
    (d) =>
      d.object.body.actor === principalKid &&
      Date.parse(d.expiresAt) > at &&
      d.permissions.some((p) => permissionGrants(p, tool.action)),
  );
  if (granting.length === 0)
    return denied(
      "NO_DELEGATION",
      `no valid delegation grants the agent the action "${tool.action}"`,
      "delegation",
    );
  // The evidence workflow (service/task-approval@0.1) applies its own delegation rule to the TASK
  // that will rely on it, the one the offline verifier applies: a delegation it refuses (issued
  // after this call, which the Cloud API admits within its clock skew, or naming another agent)
  // would give a receipt that never verifies. Such a call is denied ENGINE_REFUSED (SPEC 7.3).
  const stepAt = timestamp(now);
  const engine = granting.map((d) => ({
    d,
    // Only DELEGATION objects are stored as delegations (api/src/delegations/verify.ts checks each).
    check: checkDelegation(
      d.object as SignedObject<BodyOf<"DELEGATION">>,
      { principal: principalKid, agentId: ctx.agent.id, action: tool.action, at: stepAt },
      [],
    ),
  }));
  const usable = engine.filter((e) => e.check.ok).map((e) => e.d);
  if (usable.length === 0) {
    const refusal = engine[0]!.check as { ok: false; code: string; message: string };
    return denied(
      "ENGINE_REFUSED",
      `the evidence workflow refuses the delegation this call would rely on (${refusal.code}: ${refusal.message})`,
    );
  }
  facts.delegation = usable.reduce((a, b) => (Date.parse(b.expiresAt) > Date.parse(a.expiresAt) ? b : a));

  const p = ctx.policy;
  if (!p || !p.versionId || p.version === null || p.digest === null) {
    return denied("NO_POLICY", p ? `policy "${p.name}" has no active version` : "the agent has no policy");
  }
  if (!policy)
    return denied("INVALID_POLICY", `the active version of policy "${p.name}" cannot be evaluated`);
  if (p.emergencyStopped)
    return denied("POLICY_DENIED", `policy "${p.name}" is under an emergency stop`, "emergency_stop");

  const input = {
    agent: { id: ctx.agent.id, name: ctx.agent.name },
    tool: tool.exposedName,
    action: tool.action,
    amount: amount?.amount ?? null,
    currency: amount?.currency ?? null,
    arguments: call.arguments,
    environment: call.environment,
  };
  const { decision, facts: decisionFacts } = decide(policy, input);
  const window =
    ctx.observeWindow && (call.environment === "test" || ctx.observeWindow.live) ? ctx.observeWindow : null;
  const relaxed = decision.effect !== "allow" && decision.relaxable && window !== null;
  const status =
    relaxed || decision.effect === "allow"
      ? "allowed"
      : decision.effect === "deny"
        ? "denied"
        : "approval_pending";
  const level = effectiveDisclosure(ctx.organization.agentDisclosure, p.disclosure);
  const explanationContext = {
    policy: { name: p.name, version: p.version, digest: p.digest },
    enforcement: window ? ("observe" as const) : ("enforce" as const),
    decision: status,
    organization_approval_ttl_seconds: ctx.organization.approvalTtlSeconds,
  };
  const evaluation: Evaluation = {
    policy: { id: p.id, name: p.name, versionId: p.versionId, version: p.version, digest: p.digest },
    decision,
    facts: decisionFacts,
    enforcement: explanationContext.enforcement,
    relaxed,
    observeWindow: window ? { id: window.id, endsAt: window.endsAt } : null,
    agentExplanation: agentExplanation(policy, decision, decisionFacts, level, explanationContext),
    explanation: fullExplanation(policy, input, decision, decisionFacts, explanationContext, {
      detailed: options.detailedExplanations !== false,
    }),
  };
  const complete = facts as DecidedFacts;

  if (status === "allowed") return { kind: "allowed", facts: complete, evaluation };
  if (status === "denied") {
    const rule = decision.rule_id === null ? "the policy's default" : `rule "${decision.rule_id}"`;
    return {
      kind: "denied",
      code: "POLICY_DENIED",
      detail: `denied by ${rule} of policy "${p.name}"`,
      facts,
      evaluation,
      agentExplanation: evaluation.agentExplanation,
    };
  }
  return {
    kind: "approval",
    facts: complete,
    evaluation,
    roles: [...(decision.approvers?.roles ?? [])],
    approverCount: decision.approvers?.count ?? 1,
    ttlSeconds: decision.approval_ttl_seconds ?? ctx.organization.approvalTtlSeconds,
  };
}

/** The agent explanation of a check's refusal (SPEC 2.9): names the check, no rule. */
function checkExplanation(
  ctx: DecisionContext,
  policy: CompiledPolicy | null | undefined,
  facts: CallFacts,
  call: CallInput,
  check: string,
): AgentExplanation | null {
  const p = ctx.policy;
  if (!policy || !p || p.version === null || p.digest === null) return null;
  const level = effectiveDisclosure(ctx.organization.agentDisclosure, p.disclosure);
  const decisionFacts: DecisionFacts = {
    agent: { id: ctx.agent.id, name: ctx.agent.name },
    tool: facts.tool.exposedName,
    action: facts.tool.action,
    amount: facts.amount?.amount ?? null,
    currency: facts.amount?.currency ?? null,
    environment: call.environment,
    amount_band: null,
  };
  return agentExplanation(policy, CHECK_DECISION, decisionFacts, level, {
    policy: { name: p.name, version: p.version, digest: p.digest },
    decision: "denied",
    check,
  });
}
