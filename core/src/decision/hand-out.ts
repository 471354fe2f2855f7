import type { BodyOf, SignedObject, StepBody } from "@countersign/protocol/evidence";
import { inTransaction, newRowId, type Pool } from "../store/index.js";
import {
  authorizeApproved,
  deny,
  expire,
  readActionView,
  receiptCreated,
  receiptRecord,
  type ActionView,
} from "../actions/index.js";
import { issueStoredReceipt, storedIdentityLogs, storedObjects } from "../evidence/index.js";
import type { GatewayIdentity } from "../identities/index.js";
import { lockApprovedAction } from "./hand-out-store.js";
import { actionAuthorized } from "./record/index.js";

export type HandOut =
  | { ok: true; view: ActionView }
  /** The approved action cannot be authorized now; the answer records nothing more (e.g. the tool's binding changed). */
  | { ok: false; code: "TOOL_REAUTHORIZATION_REQUIRED"; detail: string };

/**
 * Hands out the authorization of a decision-only action a person approved
 * (SPEC 3.2 row 4, 1.7): under the locks an execution takes (the action row
 * for update, its delegation and policy for share, so a concurrent
 * revocation or stop waits for us or we see it), re-check the delegation and
 * the emergency stop, then issue the receipt over the person's APPROVAL
 * (outcome granted) and mark the action authorized until the approval's
 * expiry. An approved action that a stop closed or whose delegation was
 * revoked is never authorized: it is recorded as denied instead.
 */
export async function handOutApproved(
  pool: Pool,
  identity: GatewayIdentity,
  actionId: string,
  now: Date,
): Promise<HandOut> {
  const refused = await inTransaction(pool, async (db) => {
    const { rows } = await lockApprovedAction(db, actionId);
    const a = rows[0];
    if (!a || a.status !== "approved") return undefined; // someone else handed it out (or closed it) first
    if (a.superseded) {
      // A rollback (supersede_all) or stop covers it, even before the closer reached it (SPEC 3.6).
      await expire(
        db,
        actionId,
        "SUPERSEDED",
        "a rollback or emergency stop of the policy closed this call before it was authorized; a new call gets a new decision",
      );
      return undefined;
    }
    if (a.emergency_stopped_at) {
      await deny(
        db,
        actionId,
        "POLICY_CHANGED",
        "an emergency stop of the policy closed this approved call; the identical call with a new idempotency key gets a new decision",
      );
      return undefined;
    }
    if (a.revoked_at || a.delegation_expired) {
      await deny(
        db,
        actionId,
        "VERIFICATION_FAILED",
        "the delegation this call relied on was revoked or expired after the approval; it can no longer be authorized",
      );
      return undefined;
    }
    if (!a.tool_ready) {
      return {
        ok: false as const,
        code: "TOOL_REAUTHORIZATION_REQUIRED" as const,
        detail: "the tool changed after the decision; an owner or admin must authorize it again",
      };
    }
    const objects = await storedObjects(db, [a.task_object_id, a.proposal_object_id, a.decision_object_id]);
    const task = objects.get(a.task_object_id) as SignedObject<BodyOf<"TASK">>;
    const proposal = objects.get(a.proposal_object_id) as SignedObject<StepBody>;
    const approval = objects.get(a.decision_object_id) as SignedObject<BodyOf<"APPROVAL">>;
    const approvalExpiry = new Date(approval.body.payload.expires_at);
    if (approvalExpiry.getTime() <= now.getTime()) {
      await expire(
        db,
        actionId,
        "APPROVAL_EXPIRED",
        "the approval expired before the call was authorized; a new call gets a new decision",
      );
      return undefined;
    }
    const logs = await storedIdentityLogs(db, [task.body.on_behalf_of!, approval.body.actor]);
    const receipt = issueStoredReceipt(
      identity,
      [task, proposal, approval],
      [a.delegation_object],
      logs,
      now,
    );
    const receiptId = newRowId();
    const eventAction = {
      protected_action_id: actionId,
      agent: { id: a.agent_id, name: a.agent_name },
      tool: a.tool_name,
      action: a.action,
      execution: "caller" as const,
      environment: a.environment,
    };
    const events = [
      actionAuthorized(eventAction, {
        expires_at: approvalExpiry.toISOString(),
        approval_request_id: a.approval_request_id,
        receipt_id: receiptId,
        policy: null,
      }),
      receiptCreated({
        receipt_id: receiptId,
        protected_action_id: actionId,
        receipt_object_id: receipt.receiptObjectId,
        thread_id: receipt.threadId,
        outcome: receipt.outcome,
        bundle_sha256: receipt.bundleSha256,
      }),
    ];
    await authorizeApproved(db, {
      actionId,
      receipt: receiptRecord(receiptId, receipt, identity.signer.kid),
      events,
      expiresAt: approvalExpiry,
    });
    return undefined;
  });
  if (refused) return refused;
  return { ok: true, view: (await readActionView(pool, actionId))! };
}
