/**
 * An APPROVAL or REJECTION answering the request's signed PROPOSAL exactly (thread, parent, call,
 * on_behalf_of), signed with one of the person's keys held in this browser that the request lists.
 */
import { DashboardError } from "../api/errors.js";
import type { Approval } from "../api/types.js";
import { followingStep, timestamp, type BodyOf, type SignedObject } from "./evidence.js";
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
  const proposal = approval.proposal as unknown as SignedObject<BodyOf<"PROPOSAL">>;
  const common = {
    actor: key.kid as `kid_${string}`,
    on_behalf_of: proposal.body.on_behalf_of,
    delegations: [],
    issued_at: timestamp(new Date()),
  };
  const call = proposal.body.payload.call;
  const body =
    type === "APPROVAL"
      ? followingStep(proposal, {
          type: "APPROVAL",
          ...common,
          payload: { approval_request_id: approval.id, call, expires_at: approval.expires_at },
        })
      : followingStep(proposal, {
          type: "REJECTION",
          ...common,
          payload: { approval_request_id: approval.id, call, reason },
        });
  return signObjectWith(key.privateKey, body);
}
