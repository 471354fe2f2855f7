/**
 * An APPROVAL or REJECTION answering the request's signed PROPOSAL exactly (thread, parent, call,
 * on_behalf_of), signed with one of the person's keys held in this browser that the request lists.
 */
import { DashboardError } from "../api/errors.js";
import type { Approval } from "@countersign/protocol/wire";
import { personDecisionBody, type BodyOf, type SignedObject } from "./evidence.js";
import { personalKeys } from "./personal-key.js";
import { signObjectWith } from "./webcrypto.js";

type Proposal = SignedObject<BodyOf<"PROPOSAL">>;
const isProposal = (o: SignedObject): o is Proposal => o.body.type === "PROPOSAL";

/** The request's signed PROPOSAL (null once retention deleted it), checked to be one. */
export const proposalOf = (approval: { proposal: SignedObject | null }): Proposal | null =>
  approval.proposal && isProposal(approval.proposal) ? approval.proposal : null;

/** An approval request as the Cloud API answers it, its proposal any signed object until checked. */
export type AnsweredApproval = Omit<Approval, "proposal"> & { proposal: SignedObject | null };

export async function signDecision(
  userId: string,
  approval: AnsweredApproval,
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
  const proposal = proposalOf(approval);
  if (!proposal)
    throw new DashboardError(
      "INVALID_STATE",
      "this approval request no longer carries its proposal to answer",
    );
  const body = personDecisionBody(key.kid as `kid_${string}`, { ...approval, proposal }, type, { reason });
  return signObjectWith(key.privateKey, body);
}
