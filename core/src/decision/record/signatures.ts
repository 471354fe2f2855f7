import type { BodyOf, Kid, ObjectId, SignedObject } from "@countersign/protocol/evidence";
import type { DecisionCall } from "../authorize-call.js";
import type { DecisionContext } from "../context.js";
import { issueStoredReceipt, type IssuedReceipt } from "../../evidence/index.js";
import type { GatewayIdentity } from "../../identities/index.js";
import { signedCall, signProposal, signTask } from "./steps.js";
import type { RecordedVerdict } from "../verdict-view.js";

/** What the Gateway signs for a decision; each is absent where the verdict has none. */
export interface DecisionSignatures {
  task: SignedObject<BodyOf<"TASK">> | null;
  proposal: SignedObject<BodyOf<"PROPOSAL">> | null;
  /** The approval request the PROPOSAL announces (a call held for a person). */
  approvalId: string | null;
  /** A decision-only call allowed outright: its receipt comes with the decision. */
  receipt: IssuedReceipt | null;
}

export interface SignaturesInput {
  id: string;
  ctx: DecisionContext;
  call: DecisionCall;
  verdict: RecordedVerdict;
  argumentsDigest: `sha256:${string}`;
  /** Until when the authorization or the approval request lasts (the outcome's). */
  expiresAt: Date | null;
  approvalId: () => string;
  now: Date;
}

/**
 * The TASK, and for a call that is not denied the PROPOSAL, and for a
 * decision-only call allowed outright the receipt over both. Evidence needs
 * the principal, a delegation and a policy version: a call stopped before
 * them is recorded without signed objects.
 */
export function signDecision(identity: GatewayIdentity, s: SignaturesInput): DecisionSignatures {
  const none: DecisionSignatures = { task: null, proposal: null, approvalId: null, receipt: null };
  const { verdict, call, now } = s;
  const evaluation = verdict.evaluation;
  const delegation = verdict.facts.delegation;
  const tool = verdict.facts.tool;
  if (!evaluation || !delegation || !verdict.facts.principalKid) return none;
  const signed = signedCall(tool.exposedName, tool.action, s.argumentsDigest, verdict.facts.amount);
  const task = signTask(identity, {
    protectedActionId: s.id,
    execution: call.execution,
    agent: { id: s.ctx.agent.id, name: s.ctx.agent.name },
    call: signed,
    environment: call.key.environment,
    policy: {
      policy_id: evaluation.policy.id,
      version_id: evaluation.policy.versionId,
      version: evaluation.policy.version,
      digest: evaluation.policy.digest as `sha256:${string}`,
    },
    idempotencyKey: call.idempotencyKey,
    principalKid: verdict.facts.principalKid as Kid,
    delegationObjectId: delegation.objectId as ObjectId,
    now,
  });
  if (verdict.kind === "denied") return { ...none, task };

  const expiresAt = s.expiresAt!;
  const approvalId = verdict.kind === "approval" ? s.approvalId() : null;
  const proposal = signProposal(identity, task, {
    call: signed,
    policyEffect: evaluation.decision.effect,
    ruleId: evaluation.decision.rule_id,
    enforcement: evaluation.enforcement,
    approvalRequest:
      verdict.kind === "approval"
        ? {
            id: approvalId!,
            expires_at: expiresAt.toISOString(),
            roles: verdict.roles,
            approver_count: verdict.approverCount,
          }
        : null,
    expiresAt,
    now,
  });
  // A Gateway-enforced call's receipt comes with its RESULT (core/src/execution).
  const receipt =
    verdict.kind === "allowed" && call.execution === "caller"
      ? issueStoredReceipt(identity, [task, proposal], [delegation.object], s.ctx.principal!.documents, now)
      : null;
  return { task, proposal, approvalId, receipt };
}
