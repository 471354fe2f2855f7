import { digestOf, sha256Digest } from "@countersign/protocol/canonical";
import {
  answerFor,
  checkArguments,
  decideCall,
  deniedForApprovers,
  loadDecisionContext,
  resolveApprovers,
  type DecisionContext,
  type PolicyCache,
  type Verdict,
} from "@countersign/core/decision";
import { readActionView } from "@countersign/core/actions";
import { ServiceError } from "@countersign/protocol/errors";
import { quotas, type Plan } from "@countersign/core/plans";
import type { Queryable } from "@countersign/core/store";
import { agentAnswer, unrecorded } from "./agent-answer.js";
import { dryRunSkipped, type AmountMapping } from "@countersign/protocol/wire";
import type { DryRunReport } from "./schemas.js";
import { membersWithRoles } from "../policies/store.js";
import { actionsThisMonth, readPolicyVersion, shadowVersionOf } from "./store.js";

export interface DryRunInput {
  organizationId: string;
  agentId: string;
  tool: string;
  arguments: Record<string, unknown>;
  environment: "live" | "test";
  idempotencyKey: string | null;
  /** A hypothetical version (of any policy of the organization), decided under enforce. */
  policyVersionId: string | null;
  /** Decide as if no observe window were open. */
  ignoreObserveWindow: boolean;
  defaultPlan: Plan;
  /** COUNTERSIGN_DETAILED_EXPLANATIONS, as the Gateway applies it (SPEC 2.9). */
  detailedExplanations?: boolean;
  now: Date;
}

/** SPEC 4.5: what a dry run does not check (the wire lists them). */
export const SKIPPED = dryRunSkipped;

/**
 * The dry run of SPEC 4.5: the Gateway's decision pipeline from core
 * (loadDecisionContext, decideCall, resolveApprovers, answerFor) on current
 * configuration. It writes nothing and signs nothing; it only reads.
 */
export async function dryRun(
  db: Queryable,
  policies: PolicyCache,
  input: DryRunInput,
): Promise<DryRunReport> {
  const checked = checkArguments(input.arguments);
  if (!checked.ok)
    throw new ServiceError(
      "INVALID_ARGUMENTS",
      checked.message ?? "the arguments break the limits of SPEC 8.3",
      { reason: checked.problem },
    );
  const argumentsDigest = sha256Digest(checked.canonical!);
  const fingerprint = digestOf({ tool: input.tool, arguments_digest: argumentsDigest });

  const loaded = await loadDecisionContext(db, {
    organizationId: input.organizationId,
    agentId: input.agentId,
    tool: input.tool,
    defaultPlan: input.defaultPlan,
    idempotencyKey: input.idempotencyKey,
  });
  if (!loaded) throw new ServiceError("NOT_FOUND", "agent not found");
  const hypothetical = input.policyVersionId
    ? await hypotheticalPolicy(db, input.organizationId, input.policyVersionId)
    : null;
  const ctx: DecisionContext = {
    ...loaded,
    policy: hypothetical ?? loaded.policy,
    observeWindow: hypothetical || input.ignoreObserveWindow ? null : loaded.observeWindow,
  };
  const base: Pick<DryRunReport, "agent" | "arguments" | "tool" | "principal" | "skipped"> = {
    agent: { id: ctx.agent.id, name: ctx.agent.name, status: ctx.agent.status as "active" | "disabled" },
    arguments: { valid: true as const, digest: argumentsDigest },
    tool: ctx.tool
      ? {
          id: ctx.tool.id,
          exposed_name: ctx.tool.exposedName,
          upstream_name: ctx.tool.upstreamName,
          action: ctx.tool.action,
          execution: ctx.tool.serverKind === "decision_only" ? "caller" : "gateway",
          enabled: ctx.tool.enabled,
          binding_authorized: ctx.tool.bindingAuthorized,
          amount_mapping: (ctx.tool.amountMapping ?? null) as AmountMapping | null,
        }
      : null,
    principal: ctx.principal ? { kid: ctx.principal.kid, status: ctx.principal.status } : null,
    skipped: SKIPPED,
  };

  // A disabled agent's keys are refused before any decision (SPEC 5.4.4).
  if (ctx.agent.status !== "active") {
    return {
      ...base,
      outcome: "not_decided",
      agent_would_receive: unrecorded("UNAUTHORIZED", "the agent is disabled: its gateway keys are refused"),
      ...empty(),
    };
  }
  // A repeated idempotency key resumes the recorded action instead of deciding again (SPEC 4.1).
  if (ctx.existingActionId) {
    const view = (await readActionView(db, ctx.existingActionId))!;
    const answer =
      view.requestFingerprint !== fingerprint
        ? unrecorded(
            "IDEMPOTENCY_KEY_REUSED",
            "this idempotency key was used for a different request (tool or arguments); use a new key for a new operation",
          )
        : answerFor(view, input.now);
    return {
      ...base,
      outcome: "resumes_recorded_action",
      recorded_action_id: view.id,
      agent_would_receive: answer,
      ...empty(),
    };
  }

  const execution = ctx.tool?.serverKind === "decision_only" ? "caller" : "gateway";
  const call = {
    tool: input.tool,
    arguments: input.arguments,
    environment: input.environment,
    execution,
  } as const;
  const policy = ctx.policy?.versionId ? await policies.get(db, ctx.policy.versionId) : null;
  let verdict: Verdict = decideCall(ctx, call, policy, input.now, {
    detailedExplanations: input.detailedExplanations,
  });

  let approvers = null;
  if (verdict.kind === "approval") {
    const resolved = await resolveApprovers(db, ctx.organization.id, verdict.roles, verdict.approverCount);
    approvers = {
      roles: verdict.roles,
      approver_count: verdict.approverCount,
      approval_ttl_seconds: verdict.ttlSeconds,
      ...(resolved.ok
        ? { resolved: true, members: resolved.approvers.length, identities: resolved.kids.length }
        : {
            resolved: false,
            code: resolved.code,
            detail: resolved.detail,
            // Whether the fix is binding personal keys (members hold the roles) or inviting someone.
            members_with_role: await membersWithRoles(db, ctx.organization.id, verdict.roles),
          }),
    };
    // As the Gateway does: no approvers is a denial with the approval rule's explanation.
    if (!resolved.ok) verdict = deniedForApprovers(verdict, resolved);
  }

  const plan = await planUsage(db, ctx);
  let answer = agentAnswer(ctx, verdict, argumentsDigest, fingerprint, input.now);
  // Every recorded decision counts against the month; over the limit nothing is recorded (SPEC 8.6).
  if (verdict.kind !== "refused" && plan.would_be_refused)
    answer = unrecorded(
      "PLAN_LIMIT_EXCEEDED",
      "the organization reached its plan's monthly protected actions",
    );

  const facts = verdict.kind === "refused" ? null : verdict.facts;
  const ev = verdict.kind === "refused" ? null : verdict.evaluation;
  return {
    ...base,
    outcome: "decided",
    amount: facts?.amount ?? null,
    delegation: facts?.delegation
      ? {
          id: facts.delegation.id,
          object_id: facts.delegation.objectId,
          permissions: facts.delegation.permissions,
          expires_at: facts.delegation.expiresAt,
        }
      : null,
    delegations_active: ctx.delegations.length,
    policy: ctx.policy
      ? {
          id: ctx.policy.id,
          name: ctx.policy.name,
          version_id: ctx.policy.versionId,
          version: ctx.policy.version,
          digest: ctx.policy.digest,
          emergency_stopped: ctx.policy.emergencyStopped,
          hypothetical: hypothetical !== null,
        }
      : null,
    decision: {
      kind: verdict.kind,
      code:
        verdict.kind === "refused" || verdict.kind === "denied"
          ? verdict.code
          : verdict.kind === "approval"
            ? "APPROVAL_PENDING"
            : null,
      detail: verdict.kind === "refused" || verdict.kind === "denied" ? verdict.detail : null,
      policy_effect: ev?.decision.effect ?? null,
      rule_id: ev?.decision.rule_id ?? null,
      enforcement: ev?.enforcement ?? null,
      relaxed: ev?.relaxed ?? false,
      observe_window: ev?.observeWindow
        ? { id: ev.observeWindow.id, ends_at: ev.observeWindow.endsAt }
        : null,
      observe_window_ignored: input.ignoreObserveWindow && loaded.observeWindow !== null,
    },
    approvers,
    plan,
    explanation: ev?.explanation ?? null,
    agent_explanation: verdict.kind === "denied" ? verdict.agentExplanation : (ev?.agentExplanation ?? null),
    agent_would_receive: answer,
    shadow: await shadowDecision(db, policies, ctx, loaded, call, input.now, hypothetical !== null),
  };
}

const empty = () => ({
  amount: null,
  delegation: null,
  policy: null,
  decision: null,
  approvers: null,
  plan: null,
  explanation: null,
  agent_explanation: null,
  shadow: null,
});

async function hypotheticalPolicy(
  db: Queryable,
  organizationId: string,
  versionId: string,
): Promise<DecisionContext["policy"]> {
  const r = await readPolicyVersion(db, organizationId, versionId);
  if (!r)
    throw new ServiceError(
      "POLICY_NOT_FOUND",
      "policy_version_id names no policy version of this organization",
      { issues: [{ path: "policy_version_id", code: "not_found", message: "no such version" }] },
    );
  return {
    id: r.id,
    name: r.name,
    disclosure: r.agent_disclosure as NonNullable<DecisionContext["policy"]>["disclosure"],
    emergencyStopped: r.stopped,
    versionId: r.version_id,
    version: r.number,
    digest: r.digest,
  };
}

async function planUsage(db: Queryable, ctx: DecisionContext) {
  const plan = ctx.organization.plan as Plan;
  const limit = quotas[plan]?.protectedActionsPerMonth ?? null;
  const used = await actionsThisMonth(db, ctx.organization.id);
  return {
    plan,
    monthly_limit: limit,
    used_this_month: used,
    would_be_refused: limit !== null && used >= limit,
  };
}

/** What the agent's policy's shadow version would decide for the same call (SPEC 2.4: evaluated only in reports). */
async function shadowDecision(
  db: Queryable,
  policies: PolicyCache,
  ctx: DecisionContext,
  loaded: DecisionContext,
  call: Parameters<typeof decideCall>[1],
  now: Date,
  hypothetical: boolean,
) {
  if (!loaded.policy) return null;
  const s = await shadowVersionOf(db, loaded.policy.id);
  if (!s) return null;
  const compiled = await policies.get(db, s.id);
  const shadowCtx: DecisionContext = {
    ...ctx,
    policy: { ...loaded.policy, versionId: s.id, version: s.number, digest: s.digest },
    observeWindow: hypothetical ? null : ctx.observeWindow,
  };
  const v = decideCall(shadowCtx, call, compiled, now);
  const ev = v.kind === "refused" ? null : v.evaluation;
  return {
    version_id: s.id,
    version: s.number,
    kind: v.kind,
    code:
      v.kind === "refused" || v.kind === "denied"
        ? v.code
        : v.kind === "approval"
          ? "APPROVAL_PENDING"
          : null,
    policy_effect: ev?.decision.effect ?? null,
    rule_id: ev?.decision.rule_id ?? null,
  };
}
