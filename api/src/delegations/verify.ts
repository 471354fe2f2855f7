import { ServiceError } from "@countersign/protocol/errors";
import {
  checkDelegation,
  timestamp,
  verifySignedObject,
  type BodyOf,
  type SignedObject,
} from "@countersign/protocol/evidence";
import { principalOf, isPrincipalValid, storedIdentity } from "@countersign/core/identities";
import type { Queryable } from "@countersign/core/store";
import type { DelegationRow } from "./store.js";

/** A browser's clock may run a little ahead of ours; an object issued further in the future is refused. */
const CLOCK_SKEW_MS = 60_000;

const refused = (message: string, serviceCode: string) =>
  new ServiceError("VERIFICATION_FAILED", message, { service_code: serviceCode });

/** An action the permission grants, so checkDelegation can judge signer, agent, issue time and expiry with the Gateway's own rule. */
const actionGrantedBy = (permission: string) =>
  permission === "*"
    ? "any.action"
    : permission.endsWith(".*")
      ? `${permission.slice(0, -1)}any`
      : permission;

/**
 * A submitted DELEGATION, checked as the Gateway will use it: signed by the
 * organization's valid principal, for this organization and agent, not
 * issued in the future, not expired.
 */
export async function verifiedDelegation(
  db: Queryable,
  orgId: string,
  agentId: string,
  submitted: unknown,
  now: Date,
): Promise<SignedObject<BodyOf<"DELEGATION">>> {
  const principal = await principalOf(db, orgId);
  if (!principal)
    throw new ServiceError("NO_PRINCIPAL", "the organization has no principal; an owner registers one first");
  if (principal.status === "equivocated")
    throw new ServiceError(
      "IDENTITY_EQUIVOCATION",
      "the organization principal equivocated; an owner registers a replacement",
    );
  if (!isPrincipalValid(principal))
    throw new ServiceError("NO_PRINCIPAL", "the organization has no valid principal");
  const check = verifySignedObject(submitted, principal.documents, {
    expectedActor: principal.kid as never,
  });
  if (!check.ok)
    throw refused(
      `the delegation does not verify against the organization principal: ${check.message}`,
      check.code,
    );
  if (check.object.body.type !== "DELEGATION")
    throw refused("the object is not a DELEGATION", "OBJECT_WRONG_TYPE");
  const d = check.object as SignedObject<BodyOf<"DELEGATION">>;
  if (d.body.payload.organization_id !== orgId)
    throw refused("the delegation is for another organization", "DELEGATION_INVALID");
  if (Date.parse(d.body.issued_at) > now.getTime() + CLOCK_SKEW_MS)
    throw refused("the delegation is issued in the future", "DELEGATION_INVALID");
  const use = checkDelegation(
    d,
    {
      principal: principal.kid,
      agentId,
      action: actionGrantedBy(d.body.payload.permissions[0]!),
      at: timestamp(Math.max(now.getTime(), Date.parse(d.body.issued_at))),
    },
    [],
  );
  if (!use.ok) throw refused(use.message, use.code);
  return d;
}

/** A submitted REVOCATION of the delegation, signed by the delegation's own signer (docs/evidence.md 4). */
export async function verifiedRevocation(
  db: Queryable,
  orgId: string,
  d: DelegationRow,
  submitted: unknown,
  now: Date,
): Promise<SignedObject<BodyOf<"REVOCATION">>> {
  const signer = await storedIdentity(db, d.object.body.actor);
  if (!signer || signer.kind !== "principal" || signer.organizationId !== orgId)
    throw refused("the delegation's signer is not a principal of this organization", "IDENTITY_UNKNOWN");
  const check = verifySignedObject(submitted, signer.documents, { expectedActor: signer.kid as never });
  if (!check.ok)
    throw refused(
      `the revocation does not verify against the delegation's principal: ${check.message}`,
      check.code,
    );
  const rev = check.object as SignedObject<BodyOf<"REVOCATION">>;
  if (rev.body.type !== "REVOCATION") throw refused("the object is not a REVOCATION", "OBJECT_WRONG_TYPE");
  if (rev.body.payload.delegation !== d.object_id)
    throw refused("the revocation names another delegation", "REVOCATION_INVALID");
  if (Date.parse(rev.body.issued_at) > now.getTime() + CLOCK_SKEW_MS)
    throw refused("the revocation is issued in the future", "REVOCATION_INVALID");
  return rev;
}
