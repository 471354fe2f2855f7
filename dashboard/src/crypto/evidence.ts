/**
 * The one place the dashboard takes the evidence protocol from: @countersign/protocol, the code the
 * Cloud API, the Gateway and the CLI use, so the browser signs and verifies exactly the bytes it defines.
 */
export {
  assembleSignedObject,
  fromBase64url,
  followingStep,
  identityGenesis,
  identitySuccessor,
  kidOf,
  nobleVerify,
  objectBody,
  signingInput,
  timestamp,
  toBase64url,
  verifyBundle,
  verifyIdentityDocument,
  delegationBody,
  personDecisionBody,
  revocationBody,
  type BodyOf,
  type IdentityBody,
  type IdentityDocument,
  type ObjectBody,
  type SignedObject,
  type VerificationResult,
} from "@countersign/protocol/evidence";
export { canonicalBytes, sha256Digest } from "@countersign/protocol/canonical";
