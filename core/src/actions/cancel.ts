import { issueStoredReceipt, storedObjects } from "../evidence/index.js";
import { ServiceError } from "@countersign/protocol/errors";
import { verifySignedObject, type BodyOf, type SignedObject } from "@countersign/protocol/evidence";
import { storedIdentity, type GatewayIdentity } from "../identities/index.js";
import { inTransaction, type Pool } from "../store/index.js";
import type { Queryable } from "../store/queryable.js";
import { cancelApprovalRequest, insertCancellation, lockForCancellation } from "./cancel-store.js";
import { insertReceipt } from "./receipt-store.js";
import { CANCELLABLE_STATUSES } from "./status.js";
import { markCancelled } from "./transitions-store.js";
import { wakeWaiters } from "./wake-store.js";

/** A browser's clock may run a little ahead of ours. */
const CLOCK_SKEW_MS = 60_000;

export interface CancellationInput {
  organizationId: string;
  protectedActionId: string;
  /** A CANCELLATION signed in the admin's browser by the organization principal. */
  object: unknown;
  /** Signs the closure receipt (the installation's Gateway identity). */
  identity: GatewayIdentity;
  now?: Date;
  /** Runs in the cancellation's transaction (the caller's audit entry): it fails or commits with it. */
  alsoRecord?: (db: Queryable, done: Cancellation) => Promise<void>;
}

export interface Cancellation {
  protectedActionId: string;
  cancellationObjectId: string;
  approvalRequestId: string | null;
  receipt: { id: string; receiptObjectId: string; outcome: "final" };
}

const refused = (message: string, serviceCode: string) =>
  new ServiceError("VERIFICATION_FAILED", message, { service_code: serviceCode });

/**
 * Why an action that is not open cannot be cancelled (SPEC 7.2; the choice per
 * situation is docs/errors.md "Approval decisions and cancellations"): the very
 * CANCELLATION already recorded is a REPLAY, an action already cancelled
 * otherwise is CANCELLED, one that lapsed is EXPIRED, and any other state
 * (running or finished) is INVALID_STATE.
 */
function closedRefusal(
  a: { status: string; cancellation_object_id: string | null },
  submitted: unknown,
): ServiceError {
  const id = (submitted as { id?: unknown } | null)?.id;
  if (a.cancellation_object_id !== null && id === a.cancellation_object_id)
    return new ServiceError("REPLAY", "this signed cancellation was already recorded for this action");
  if (a.status === "cancelled") return new ServiceError("CANCELLED", "this action is already cancelled");
  if (a.status === "expired")
    return new ServiceError("EXPIRED", "this action expired before it ran; there is nothing to cancel");
  return new ServiceError(
    "INVALID_STATE",
    `an action that is ${a.status} cannot be cancelled; only pending approval or approved actions can`,
  );
}

/**
 * Cancels an open action (SPEC 3.1, 6.1): verifies the CANCELLATION against
 * the principal the TASK acted for (chain rule 2 of docs/evidence.md), then in
 * one transaction stores it, closes the approval request, sets the action
 * `cancelled` and issues the closure receipt over TASK → CANCELLATION
 * (outcome `final`) with `receipt.created` as its only event. If the receipt
 * cannot be stored nothing is recorded. Waiting Gateways are woken at commit.
 */
export async function cancelAction(pool: Pool, input: CancellationInput): Promise<Cancellation> {
  const now = input.now ?? new Date();
  return inTransaction(pool, async (db) => {
    const a = await lockForCancellation(db, input.protectedActionId, input.organizationId);
    if (!a) throw new ServiceError("NOT_FOUND", "no such protected action");
    if (!(CANCELLABLE_STATUSES as readonly string[]).includes(a.status)) throw closedRefusal(a, input.object);
    const task = (await storedObjects(db, [a.task_object_id])).get(a.task_object_id) as
      SignedObject<BodyOf<"TASK">> | undefined;
    if (!task) throw new ServiceError("INVALID_STATE", "the action has no signed TASK to cancel");
    const principalKid = task.body.on_behalf_of!;
    const principal = await storedIdentity(db, principalKid);
    if (!principal || principal.kind !== "principal" || principal.organizationId !== input.organizationId) {
      throw new ServiceError("IDENTITY_UNKNOWN", "the principal this action was decided for is not stored");
    }
    const submitted = input.object as { body?: { actor?: unknown } } | null;
    if (typeof submitted?.body?.actor === "string" && submitted.body.actor !== principalKid) {
      throw new ServiceError(
        "IDENTITY_MISMATCH",
        "the cancellation must be signed by the organization principal this action was decided for",
      );
    }
    const check = verifySignedObject(input.object, principal.documents, {
      expectedActor: principalKid as never,
    });
    if (!check.ok)
      throw refused(
        `the cancellation does not verify against the organization principal: ${check.message}`,
        check.code,
      );
    if (check.object.body.type !== "CANCELLATION")
      throw refused("the object is not a CANCELLATION", "OBJECT_WRONG_TYPE");
    const cancellation = check.object as SignedObject<BodyOf<"CANCELLATION">>;
    if (cancellation.body.thread !== task.id || cancellation.body.parent !== task.id) {
      throw refused("the cancellation does not follow this action's TASK", "CHAIN_BROKEN");
    }
    const issuedAt = Date.parse(cancellation.body.issued_at);
    if (issuedAt < Date.parse(task.body.issued_at) || issuedAt > now.getTime() + CLOCK_SKEW_MS) {
      throw refused("the cancellation's issued_at is before the TASK or in the future", "TIME_ORDER");
    }

    await insertCancellation(db, input.organizationId, a.id, cancellation);
    const issued = issueStoredReceipt(
      input.identity,
      [task, cancellation],
      a.delegation_object ? [a.delegation_object] : [],
      principal.documents,
      now,
    );
    // SPEC 6.1: cancelling has no event of its own, only its receipt's.
    const receiptId = await insertReceipt(db, {
      organizationId: input.organizationId,
      actionId: a.id,
      issuerKid: input.identity.signer.kid,
      issued,
    });
    if (a.approval_request_id) await cancelApprovalRequest(db, a.approval_request_id);
    // Locked and checked above: it applies (anything else undoes the whole cancellation).
    if (!(await markCancelled(db, a.id, receiptId, now)))
      throw new ServiceError("INVALID_STATE", "the action changed while it was being cancelled");
    const done: Cancellation = {
      protectedActionId: a.id,
      cancellationObjectId: cancellation.id,
      approvalRequestId: a.approval_request_id,
      receipt: { id: receiptId, receiptObjectId: issued.receiptObjectId, outcome: "final" },
    };
    await input.alsoRecord?.(db, done);
    await wakeWaiters(db, a.id);
    return done;
  });
}
