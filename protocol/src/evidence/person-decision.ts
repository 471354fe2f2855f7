// A person's answer to an approval request (docs/evidence.md, SPEC 2.7): an APPROVAL or a
// REJECTION following the request's signed PROPOSAL exactly (thread, parent, call, on_behalf_of).
// The dashboard signs it with WebCrypto, the CLI with the person's key file; both build it here,
// so its shape is defined once.
import { timestamp } from "./fields.js";
import type { Kid } from "./kid.js";
import { followingStep } from "./object.js";
import type { BodyOf, SignedObject } from "./signed-object.js";

/** What a decision needs of the approval request as the Cloud API answers it. */
export interface DecidedRequest {
  id: string;
  expires_at: string;
  proposal: SignedObject<BodyOf<"PROPOSAL">>;
}

/** The APPROVAL (valid until the request's expiry) or REJECTION body that `personKid` signs. */
export function personDecisionBody(
  personKid: Kid,
  request: DecidedRequest,
  type: "APPROVAL" | "REJECTION",
  opts: { reason?: string; issuedAt?: Date } = {},
): BodyOf<"APPROVAL"> | BodyOf<"REJECTION"> {
  const proposal = request.proposal;
  const common = {
    actor: personKid,
    on_behalf_of: proposal.body.on_behalf_of,
    delegations: [],
    issued_at: timestamp(opts.issuedAt ?? new Date()),
  };
  const call = proposal.body.payload.call;
  return type === "APPROVAL"
    ? (followingStep(proposal, {
        type: "APPROVAL",
        ...common,
        payload: { approval_request_id: request.id, call, expires_at: request.expires_at },
      }) as BodyOf<"APPROVAL">)
    : (followingStep(proposal, {
        type: "REJECTION",
        ...common,
        payload: { approval_request_id: request.id, call, reason: opts.reason ?? "rejected" },
      }) as BodyOf<"REJECTION">);
}
