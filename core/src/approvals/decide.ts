import { canonicalJson } from "@countersign/protocol/canonical";
import { approve, insertReceipt, reject, wakeWaiters } from "../actions/index.js";
import { issueStoredReceipt, storedIdentityLogs, storedObjects } from "../evidence/index.js";
import { ServiceError } from "@countersign/protocol/errors";
import {
  verifySignedObject,
  type BodyOf,
  type SignedObject,
  type StepBody,
} from "@countersign/protocol/evidence";
import { personOfIdentity, type GatewayIdentity } from "../identities/index.js";
import { inTransaction, type Pool } from "../store/index.js";
import type { Queryable } from "../store/queryable.js";
import { insertDecisionObject, lockApprovalRequest, recordRequestDecision } from "./store.js";

export interface ApprovalDecisionInput {
  organizationId: string;
  approvalRequestId: string;
  /** The signed-in person deciding. */
  userId: string;
  /** An APPROVAL or REJECTION signed in advance with the person's personal key (SPEC 2.7). */
  object: unknown;
  /** Signs the closure receipt of a rejection. */
  identity: GatewayIdentity;
  now?: Date;
  /** Runs in the decision's transaction (the Cloud API's audit entry): it fails or commits with it. */
  alsoRecord?: (db: Queryable, decision: ApprovalDecision) => Promise<void>;
}

export interface ApprovalDecision {
  status: "approved" | "rejected";
  protectedActionId: string;
  decisionObjectId: string;
  receipt: { id: string; receiptObjectId: string; outcome: string } | null;
}

function refused(code: "VERIFICATION_FAILED", message: string, serviceCode?: string): ServiceError {
  return new ServiceError(code, message, serviceCode ? { service_code: serviceCode } : undefined);
}

/**
 * Why a request that is no longer pending cannot be decided (SPEC 7.2; the choice
 * per situation is docs/errors.md "Approval decisions and cancellations"): the
 * very signed object already recorded as its decision is a REPLAY, a request
 * that lapsed is EXPIRED, one closed by cancelling its action is CANCELLED, and
 * one a person (or a lapse of its action) decided otherwise is ALREADY_DECIDED.
 */
function closedRefusal(
  r: { status: string; action_status: string; decision_object_id: string | null },
  submitted: unknown,
): ServiceError {
  const id = (submitted as { id?: unknown } | null)?.id;
  if (r.decision_object_id !== null && id === r.decision_object_id)
    return new ServiceError("REPLAY", "this signed decision was already recorded for this approval request");
  if (r.status === "expired" || r.action_status === "expired")
    return new ServiceError("EXPIRED", "this approval request expired before it was decided");
  if (r.status === "cancelled" || r.action_status === "cancelled")
    return new ServiceError(
      "CANCELLED",
      "the organization cancelled this action; it can no longer be decided",
    );
  return new ServiceError("ALREADY_DECIDED", "this approval request is no longer pending");
}

/**
 * A person's decision on an approval request (SPEC 2.7, 3.2; the Cloud API's
 * POST .../approvals/<id>/decision calls this). Refusals change nothing.
 * An APPROVAL moves the action to approved; a REJECTION closes it with a
 * closure receipt (outcome final) and `receipt.created` in the same
 * transaction, so if the receipt cannot be stored nothing is recorded. Either
 * way every replica holding a wait for the action is woken.
 */
export async function decideApproval(pool: Pool, input: ApprovalDecisionInput): Promise<ApprovalDecision> {
  const now = input.now ?? new Date();
  return inTransaction(pool, async (db) => {
    const r = await lockApprovalRequest(db, input.approvalRequestId, input.organizationId);
    if (!r) throw new ServiceError("NOT_FOUND", "no such approval request");
    if (r.status === "superseded" || (r.status === "pending" && r.superseded)) {
      throw new ServiceError(
        "POLICY_VERSION_REPLACED",
        "a rollback or emergency stop replaced the policy version and closed this approval request",
      );
    }
    if (r.status !== "pending" || r.action_status !== "pending_approval")
      throw closedRefusal(r, input.object);
    if (new Date(r.expires_at).getTime() <= now.getTime())
      throw new ServiceError("EXPIRED", "this approval request expired before it was decided");

    const submitted = input.object as { body?: { actor?: unknown; type?: unknown } } | null;
    const actor = typeof submitted?.body?.actor === "string" ? submitted.body.actor : undefined;
    if (!actor)
      throw refused("VERIFICATION_FAILED", "the decision is not a signed object", "OBJECT_MALFORMED");
    const signerUserId = await personOfIdentity(db, actor);
    if (!signerUserId)
      throw new ServiceError(
        "IDENTITY_UNKNOWN",
        "the decision is signed by an identity that is not bound to any person",
      );
    if (signerUserId !== input.userId)
      throw new ServiceError("IDENTITY_MISMATCH", "the decision is signed by another person's identity");
    if (!r.approver_kids.includes(actor)) {
      throw new ServiceError("IDENTITY_MISMATCH", "this identity is not among the approvers of this request");
    }

    const logs = await storedIdentityLogs(db, [actor]);
    const check = verifySignedObject(input.object, logs);
    if (!check.ok) throw refused("VERIFICATION_FAILED", check.message, check.code);
    const object = check.object as SignedObject<StepBody>;
    const type = object.body.type;
    if (type !== "APPROVAL" && type !== "REJECTION")
      throw refused("VERIFICATION_FAILED", "the decision must be an APPROVAL or a REJECTION", "CHAIN_BROKEN");

    const objects = await storedObjects(db, [r.task_object_id, r.proposal_object_id]);
    const task = objects.get(r.task_object_id) as SignedObject<BodyOf<"TASK">>;
    const proposal = objects.get(r.proposal_object_id) as SignedObject<BodyOf<"PROPOSAL">>;
    const body = object.body as BodyOf<"APPROVAL"> | BodyOf<"REJECTION">;
    const answers =
      body.thread === task.id &&
      body.parent === proposal.id &&
      body.on_behalf_of === task.body.on_behalf_of &&
      body.payload.approval_request_id === r.id &&
      canonicalJson(body.payload.call) === canonicalJson(proposal.body.payload.call);
    if (!answers)
      throw refused(
        "VERIFICATION_FAILED",
        "the decision does not answer this request's proposal and call exactly",
        "CHAIN_BROKEN",
      );
    if (
      Date.parse(body.issued_at) < Date.parse(proposal.body.issued_at) ||
      Date.parse(body.issued_at) > now.getTime() + 5 * 60_000
    ) {
      throw refused(
        "VERIFICATION_FAILED",
        "the decision's issued_at is before the proposal or in the future",
        "TIME_ORDER",
      );
    }
    if (body.type === "APPROVAL" && Date.parse(body.payload.expires_at) > new Date(r.expires_at).getTime()) {
      throw refused(
        "VERIFICATION_FAILED",
        "the approval may not outlive its request",
        "APPROVAL_OUTLIVES_REQUEST",
      );
    }

    await insertDecisionObject(db, input.organizationId, r.protected_action_id, object);
    const status = type === "APPROVAL" ? "approved" : "rejected";
    await recordRequestDecision(db, r.id, status, now, actor, object.id);

    let receipt: ApprovalDecision["receipt"] = null;
    if (type === "REJECTION") {
      const principalLogs = await storedIdentityLogs(db, [task.body.on_behalf_of!]);
      const issued = issueStoredReceipt(
        input.identity,
        [task, proposal, object],
        r.delegation_object ? [r.delegation_object] : [],
        [...principalLogs, ...logs],
        now,
      );
      const receiptId = await insertReceipt(db, {
        organizationId: input.organizationId,
        actionId: r.protected_action_id,
        issuerKid: input.identity.signer.kid,
        issued,
      });
      receipt = { id: receiptId, receiptObjectId: issued.receiptObjectId, outcome: issued.outcome };
    }
    // Locked and checked pending above: it applies (anything else undoes the whole decision).
    const moved = receipt
      ? await reject(db, r.protected_action_id, receipt.id)
      : await approve(db, r.protected_action_id);
    if (!moved) throw new ServiceError("ALREADY_DECIDED", "this approval request is no longer pending");
    const decision: ApprovalDecision = {
      status,
      protectedActionId: r.protected_action_id,
      decisionObjectId: object.id,
      receipt,
    };
    await input.alsoRecord?.(db, decision);
    await wakeWaiters(db, r.protected_action_id);
    return decision;
  });
}
