import { receiptRecord } from "../../actions/index.js";
import type { GatewayIdentity } from "../../identities/index.js";
import { quotas, type Plan } from "../../plans/index.js";
import { newRowId } from "../../store/row-id.js";
import type { DecisionCall } from "../authorize-call.js";
import type { DecisionContext } from "../context.js";
import type { DecisionWrite, ObjectRecord } from "./decision-write.js";
import type { RecordedIds, RecordedVerdict, VerdictOutcome } from "../verdict-view.js";
import { actionRecord } from "./action-record.js";
import { decisionEvents } from "./events.js";
import { signDecision } from "./signatures.js";

export interface DecisionWriteInput {
  identity: GatewayIdentity;
  instanceId: string;
  ctx: DecisionContext;
  call: DecisionCall;
  verdict: RecordedVerdict;
  outcome: VerdictOutcome;
  argumentsDigest: `sha256:${string}`;
  fingerprint: string;
  /** The identities that may approve a held call (approvers.ts). */
  approvers: string[];
  now: Date;
}

const objectRecord = (o: { id: string; body: { type: string } }): ObjectRecord => ({
  objectId: o.id,
  type: o.body.type,
  object: o,
});

/**
 * Everything a new decision writes, in the shape of the one-statement write
 * (store.ts): the action's row, what the Gateway signs, and the events.
 */
export function decisionWrite(w: DecisionWriteInput): DecisionWrite {
  const id = newRowId();
  const { ctx, call, verdict, outcome } = w;
  const action = actionRecord({ id, ...w, instanceId: w.instanceId });
  const signed = signDecision(w.identity, {
    id,
    ctx,
    call,
    verdict,
    argumentsDigest: w.argumentsDigest,
    expiresAt: outcome.expiresAt,
    approvalId: newRowId,
    now: w.now,
  });
  action.taskObjectId = signed.task?.id ?? null;
  action.proposalObjectId = signed.proposal?.id ?? null;
  const receipt = signed.receipt && receiptRecord(newRowId(), signed.receipt, w.identity.signer.kid);
  return {
    action,
    objects: [signed.task, signed.proposal].filter((o) => o !== null).map(objectRecord),
    receipt,
    approval:
      verdict.kind === "approval"
        ? {
            id: signed.approvalId!,
            roles: verdict.roles,
            approverCount: verdict.approverCount,
            approverKids: w.approvers,
            expiresAt: outcome.expiresAt!,
          }
        : null,
    events: decisionEvents({
      id,
      ctx,
      call,
      verdict,
      expiresAt: outcome.expiresAt,
      approvalId: signed.approvalId,
      receipt,
    }),
    monthlyLimit: quotas[ctx.organization.plan as Plan]?.protectedActionsPerMonth ?? null,
  };
}

/** The ids a decision write created, for the view answered without reading it back. */
export function idsOf(w: DecisionWrite): RecordedIds {
  return {
    id: w.action.id,
    taskObjectId: w.action.taskObjectId,
    proposalObjectId: w.action.proposalObjectId,
    approvalId: w.approval?.id ?? null,
    receipt: w.receipt
      ? { id: w.receipt.id, receiptObjectId: w.receipt.receiptObjectId, outcome: w.receipt.outcome }
      : null,
  };
}
