import { decideApproval as decide, type ApprovalDecision } from "@countersign/core/approvals";
import { audit, type Actor } from "../audit/record.js";
import type { ApiContext } from "../context.js";
import { gatewayIdentityOf } from "../evidence/options.js";
import { readApproval } from "./store.js";

/**
 * A person's decision on an approval request: an APPROVAL or REJECTION signed in their browser with
 * a bound personal identity (SPEC 3.2). Every check and refusal is core's decideApproval, shared with
 * the Gateway; the decision is audited `approval.approved` or `approval.rejected` in its transaction.
 * The request is looked up first, so a missing one is 404 even where the installation has no
 * signing key.
 */
export async function decideApproval(
  ctx: Pick<ApiContext, "pool" | "evidence">,
  q: { organizationId: string; approvalId: string; userId: string; decision: unknown; actor: Actor },
): Promise<ApprovalDecision> {
  await readApproval(ctx.pool, q.organizationId, q.approvalId);
  const identity = await gatewayIdentityOf(ctx.pool, ctx.evidence);
  return decide(ctx.pool, {
    organizationId: q.organizationId,
    approvalRequestId: q.approvalId,
    userId: q.userId,
    object: q.decision,
    identity,
    alsoRecord: (db, d) =>
      audit(db, {
        organizationId: q.organizationId,
        action: d.status === "approved" ? "approval.approved" : "approval.rejected",
        actor: q.actor,
        target: { type: "approval_request", id: q.approvalId },
        details: {
          protected_action_id: d.protectedActionId,
          decision_object_id: d.decisionObjectId,
          receipt_id: d.receipt?.id ?? null,
        },
      }),
  });
}
