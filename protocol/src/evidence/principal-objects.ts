// The objects an organization principal signs about an agent (docs/evidence.md 4): a DELEGATION of
// permissions until an expiry, and the REVOCATION of one. Browsers, the operator (which keeps the
// principal's key in a Secret), the demo seed and tests all build them here, so their shape is
// defined once.
import type { Signer } from "./ed25519.js";
import type { Kid } from "./kid.js";
import { timestamp, type ObjectId } from "./fields.js";
import { objectBody, signObject } from "./object.js";
import type { BodyOf, SignedObject } from "./signed-object.js";

export interface DelegationInput {
  organization_id: string;
  agent_id: string;
  permissions: string[];
  expires_at: Date | string;
  issued_at?: Date | string;
}

const at = (t: Date | string) => timestamp(typeof t === "string" ? Date.parse(t) : t);

/** The DELEGATION body a principal signs; browsers sign it with WebCrypto, the rest through signDelegation. */
export function delegationBody(principalKid: Kid, d: DelegationInput): BodyOf<"DELEGATION"> {
  return objectBody({
    type: "DELEGATION",
    actor: principalKid,
    on_behalf_of: null,
    thread: null,
    parent: null,
    delegations: [],
    issued_at: at(d.issued_at ?? new Date()),
    payload: {
      organization_id: d.organization_id,
      agent_id: d.agent_id,
      permissions: d.permissions,
      expires_at: at(d.expires_at),
    },
  });
}

export function signDelegation(principal: Signer, d: DelegationInput): SignedObject<BodyOf<"DELEGATION">> {
  return signObject(delegationBody(principal.kid, d), principal);
}

/** The REVOCATION body of one delegation, as the principal signs it. */
export function revocationBody(
  principalKid: Kid,
  delegationObjectId: string,
  issuedAt: Date | string = new Date(),
): BodyOf<"REVOCATION"> {
  return objectBody({
    type: "REVOCATION",
    actor: principalKid,
    on_behalf_of: null,
    thread: null,
    parent: null,
    delegations: [],
    issued_at: at(issuedAt),
    payload: { delegation: delegationObjectId as ObjectId },
  });
}

export function signRevocation(
  principal: Signer,
  delegationObjectId: string,
  issuedAt: Date | string = new Date(),
): SignedObject<BodyOf<"REVOCATION">> {
  return signObject(revocationBody(principal.kid, delegationObjectId, issuedAt), principal);
}
