/**
 * An APPROVAL or REJECTION answering the request's signed PROPOSAL exactly (thread, parent, call,
 * on_behalf_of), signed with one of the person's keys held in this browser that the request lists.
 */
import { DashboardError } from "../api/errors.js";
import type { Approval } from "../api/types.js";
import { personDecisionBody } from "./evidence.js";
import { personalKeys } from "./personal-key.js";
import { signObjectWith } from "./webcrypto.js";

export async function signDecision(
  userId: string,
  approval: Approval,
  type: "APPROVAL" | "REJECTION",
  reason = "rejected",
) {
  const keys = await personalKeys(userId);
  const key = keys.find((k) => approval.approver_kids.includes(k.kid));
  if (!key)
    throw new DashboardError(
      "IDENTITY_MISSING",
      "no key of yours in this browser is among this request's approvers",
    );
  const { proposal } = approval;
  if (!proposal)
    throw new DashboardError(
      "INVALID_STATE",
      "this approval request no longer carries its proposal to answer",
    );
  const body = personDecisionBody(key.kid as `kid_${string}`, { ...approval, proposal }, type, { reason });
  return signObjectWith(key.privateKey, body);
}
