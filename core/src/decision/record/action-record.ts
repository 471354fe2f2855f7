import { digestOf } from "@countersign/protocol/canonical";
import type { DecisionCall } from "../authorize-call.js";
import type { DecisionContext } from "../context.js";
import { LANGUAGE_REVISION } from "../language-revision.js";
import type { ActionRecord } from "../../actions/index.js";
import type { RecordedVerdict, VerdictOutcome } from "../verdict-view.js";

export interface ActionRecordInput {
  id: string;
  ctx: DecisionContext;
  call: DecisionCall;
  verdict: RecordedVerdict;
  outcome: VerdictOutcome;
  argumentsDigest: `sha256:${string}`;
  fingerprint: string;
  instanceId: string;
}

/** The protected action's row as the decision writes it; the signed objects' ids are filled in by the caller. */
export function actionRecord(a: ActionRecordInput): ActionRecord {
  const { call, verdict, outcome } = a;
  const tool = verdict.facts.tool;
  const amount = verdict.facts.amount;
  const evaluation = verdict.evaluation;
  return {
    id: a.id,
    organizationId: a.ctx.organization.id,
    agentId: a.ctx.agent.id,
    apiKeyId: call.key.id,
    toolId: tool.id,
    toolName: tool.exposedName,
    action: tool.action,
    execution: call.execution,
    environment: call.key.environment,
    status: outcome.status,
    decisionCode: outcome.decisionCode,
    decisionDetail: outcome.decisionDetail,
    argumentsDigest: a.argumentsDigest,
    // Kept only for a call a person must approve: they read the exact call they sign for.
    arguments: verdict.kind === "approval" ? call.canonicalArguments : null,
    requestFingerprint: a.fingerprint,
    idempotencyKey: call.idempotencyKey,
    amount: amount?.amount ?? null,
    currency: amount?.currency ?? null,
    policy: evaluation
      ? {
          policyId: evaluation.policy.id,
          versionId: evaluation.policy.versionId,
          version: evaluation.policy.version,
          digest: evaluation.policy.digest,
          ruleId: evaluation.decision.rule_id,
          effect: evaluation.decision.effect,
          enforcement: evaluation.enforcement,
        }
      : null,
    agentExplanation: outcome.agentExplanation,
    explanation: evaluation?.explanation ?? null,
    delegationId: verdict.facts.delegation?.id ?? null,
    taskObjectId: null,
    proposalObjectId: null,
    expiresAt: outcome.expiresAt,
    observeWindowId: evaluation?.observeWindow?.id ?? null,
    relaxed: outcome.relaxed,
    gatewayInstanceId: a.instanceId,
    gatewayLanguageRevision: LANGUAGE_REVISION,
    bindingDigest: tool.binding == null ? null : digestOf(tool.binding),
  };
}
