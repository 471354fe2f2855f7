import { signerActorTypes } from "./actor-types.js";
import type { Ed25519Verify } from "./ed25519.js";
import { timeOf } from "./fields.js";
import type { IdentityDocument } from "./identity.js";
import { verifyIdentityDocument } from "./identity.js";
import { identityStates, type IdentityState } from "./identity-log.js";
import type { Kid } from "./kid.js";
import { checkObjectCrypto } from "./object.js";
import { signedObjectSchema, type SignedObject } from "./signed-object.js";
import { defaultVerify } from "./sign.js";

export type ObjectProblemCode =
  | "OBJECT_MALFORMED"
  | "OBJECT_ID_MISMATCH"
  | "SIGNATURE_INVALID"
  | "IDENTITY_UNKNOWN"
  | "IDENTITY_EQUIVOCATION"
  | "IDENTITY_WRONG_ACTOR_TYPE"
  | "IDENTITY_REVOKED"
  | "IDENTITY_REPLACED";

export type ObjectCheck =
  | { ok: true; object: SignedObject; identity: IdentityState }
  | { ok: false; code: ObjectProblemCode; message: string };

/**
 * One object against what is known of its signer: its shape, its id, its
 * signature, and that the signer's identity is of a kind that may sign it
 * and could still sign at the object's issued_at.
 */
export function checkSignedObject(
  object: SignedObject,
  identity: IdentityState | undefined,
  verify: Ed25519Verify = defaultVerify,
): ObjectCheck {
  if (!identity)
    return { ok: false, code: "IDENTITY_UNKNOWN", message: `no identity document for ${object.body.actor}` };
  if (identity.equivocated)
    return { ok: false, code: "IDENTITY_EQUIVOCATION", message: `${identity.kid} equivocated` };
  const crypto = checkObjectCrypto(object, identity.publicKey, verify);
  if (crypto === "OBJECT_ID_MISMATCH")
    return { ok: false, code: crypto, message: "id is not the hash of the body" };
  if (crypto === "SIGNATURE_INVALID")
    return { ok: false, code: crypto, message: "signature does not verify" };
  if (!signerActorTypes[object.body.type].includes(identity.actorType)) {
    return {
      ok: false,
      code: "IDENTITY_WRONG_ACTOR_TYPE",
      message: `a ${identity.actorType} identity may not sign a ${object.body.type}`,
    };
  }
  if (identity.finalAt !== null && timeOf(object.body.issued_at) >= timeOf(identity.finalAt)) {
    const first = identity.documents.find((d) => d.body.status !== "active")!;
    const code = first.body.status === "revoked" ? "IDENTITY_REVOKED" : "IDENTITY_REPLACED";
    return {
      ok: false,
      code,
      message: `signed at or after the identity was ${first.body.status} (${identity.finalAt})`,
    };
  }
  return { ok: true, object, identity };
}

/**
 * For the Cloud API: a signed object submitted by a browser (an APPROVAL by
 * a person, a DELEGATION by the principal, ...) checked against the signer's
 * stored identity documents. `expectedActor` pins who must have signed it.
 */
export function verifySignedObject(
  submitted: unknown,
  identityDocuments: readonly IdentityDocument[],
  options: { expectedActor?: Kid; verify?: Ed25519Verify } = {},
): ObjectCheck {
  const verify = options.verify ?? defaultVerify;
  const parsed = signedObjectSchema.safeParse(submitted);
  if (!parsed.success)
    return { ok: false, code: "OBJECT_MALFORMED", message: "object does not match its type's schema" };
  const object = parsed.data as SignedObject;
  if (options.expectedActor !== undefined && object.body.actor !== options.expectedActor) {
    return { ok: false, code: "IDENTITY_UNKNOWN", message: "object is not signed by the expected identity" };
  }
  const docs = identityDocuments.filter(
    (d) => d.body.kid === object.body.actor && verifyIdentityDocument(d, verify).ok,
  );
  return checkSignedObject(object, identityStates(docs).get(object.body.actor), verify);
}
