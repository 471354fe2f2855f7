/**
 * The evidence protocol (docs/evidence.md): identities, signed objects,
 * receipts, bundles and their offline verification. Pure: no database, no
 * network. Runs in browsers as well as Node.js: node:crypto signs and
 * verifies where it exists (the server's hot path), noble everywhere else.
 */

// Keys and KIDs
export { kidOf, isKid, kidPattern, type Kid } from "./kid.js";
export type { Signer, Ed25519Verify } from "./ed25519.js";
export {
  nodeSigner,
  nodeVerify,
  privateKeyFromSeed,
  publicKeyObject,
  rawPublicKey,
  generateSeed,
  signerFromSeed,
  defaultVerify,
} from "./sign.js";
export { nobleSigner, nobleVerify } from "./noble.js";
export { toBase64url, fromBase64url } from "./encoding.js";

// Common fields
export {
  protocolVersion,
  timestamp,
  timeOf,
  kidSchema,
  objectIdSchema,
  digestSchema,
  timestampSchema,
  type ObjectId,
} from "./fields.js";

// Identities
export {
  actorTypes,
  identityStatuses,
  identityBodySchema,
  identityDocumentSchema,
  identitySubjectSchema,
  identityGenesis,
  identitySuccessor,
  signIdentity,
  verifyIdentityDocument,
  identityDigest,
  type ActorType,
  type IdentityStatus,
  type IdentityBody,
  type IdentityDocument,
  type IdentitySubject,
} from "./identity.js";
export {
  identityStates,
  mayIdentitySign,
  acceptIdentityDocument,
  type IdentityState,
  type AcceptOutcome,
} from "./identity-log.js";
export { findEquivocations, equivocatedKids, type Equivocation } from "./equivocation.js";

// Signed objects
export * from "./payloads.js";
export {
  objectBodySchema,
  delegationBodySchema,
  proposalBodySchema,
  revocationBodySchema,
  signedObjectSchema,
  objectTypes,
  stepTypes,
  isStepBody,
  type ObjectBody,
  type ObjectType,
  type BodyOf,
  type PayloadOf,
  type SignedObject,
  type StepType,
  type StepBody,
} from "./signed-object.js";
export { signingInput, objectId } from "./object-id.js";
export {
  objectBody,
  ownBody,
  followingStep,
  followingOwnStep,
  signObject,
  assembleSignedObject,
  type ObjectBodyInput,
} from "./object.js";
export { signerActorTypes } from "./actor-types.js";
export {
  checkSignedObject,
  verifySignedObject,
  type ObjectCheck,
  type ObjectProblemCode,
} from "./verify-object.js";
export { allowedParents, mayFollow } from "./chain.js";
export { permissionGrants, checkDelegation, type DelegationProblem } from "./delegation.js";
export {
  delegationBody,
  revocationBody,
  signDelegation,
  signRevocation,
  type DelegationInput,
} from "./principal-objects.js";
export { personDecisionBody, type DecidedRequest } from "./person-decision.js";

// Receipts and bundles
export {
  receiptPayloadSchema,
  receiptSchemaId,
  workflowId,
  receiptKinds,
  outcomes,
  type ReceiptPayload,
  type ReceiptKind,
  type Outcome,
} from "./receipt-payload.js";
export { summarySchema, summaryKeys, deriveSummary, type Summary, type SummaryStep } from "./summary.js";
export { deriveOutcome, issueReceipt, type ReceiptInput } from "./receipt.js";
export {
  bundleFormatVersion,
  bundleContentType,
  bundleFileName,
  bundleEnvelopeSchema,
  disclosureSchema,
  issueBundle,
  serializeBundle,
  bundleFacts,
  type Bundle,
  type Disclosure,
} from "./bundle.js";

// Verification
export { verifyBundle } from "./verify/verify-bundle.js";
export type { VerifyOptions } from "./verify/context.js";
export {
  verificationResultSchema,
  verificationProblemSchema,
  type VerificationResult,
  type VerificationProblem,
} from "./verify/result.js";
export {
  evidenceErrorCodes,
  evidenceWarningCodes,
  checkNames,
  type EvidenceErrorCode,
  type EvidenceWarningCode,
  type CheckName,
} from "./verify/codes.js";
