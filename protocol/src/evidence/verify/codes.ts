/**
 * The named problems a verification reports (docs/evidence.md, "Error
 * codes"). Stable: clients and the Cloud API (details.service_code of a
 * VERIFICATION_FAILED) match on them. Codes that the error catalog of SPEC 7.2
 * already names (IDENTITY_*) keep its spelling.
 */
export const evidenceErrorCodes = {
  BUNDLE_MALFORMED: "the file is not a bundle of this format (JSON shape, service_bundle version)",
  OBJECT_MALFORMED: "an object does not match the schema of its type",
  OBJECT_DUPLICATE: "the same object id appears twice",
  OBJECT_ID_MISMATCH: "an object's id is not ko_ + SHA-256 of its canonical body",
  SIGNATURE_INVALID: "an Ed25519 signature does not verify with the signer's key",
  IDENTITY_INVALID:
    "an identity document is malformed, its KID is not its key's hash, its self-signature fails, or its log has gaps",
  IDENTITY_UNKNOWN: "a signer has no identity document in the bundle",
  IDENTITY_EQUIVOCATION: "an identity has two conflicting documents and is permanently invalid",
  IDENTITY_WRONG_ACTOR_TYPE: "an object is signed by a kind of identity that may not sign it",
  IDENTITY_MISMATCH:
    "identities disagree (organization) or the receipt's identity manifest differs from the bundle",
  IDENTITY_REVOKED: "an object was signed at or after its signer's identity was revoked",
  IDENTITY_REPLACED: "an object was signed at or after its signer's identity was replaced",
  CHAIN_BROKEN: "a step's parent or thread link does not lead to the TASK of the receipt",
  CHAIN_INVALID_STEP: "a step follows a step it may not follow, or a step's time is before its parent's",
  CHAIN_ORDER: "the objects are not listed as path TASK → head first, in order",
  CALL_MISMATCH: "a step restates a different call (tool, action, arguments digest, amount) than the TASK",
  ON_BEHALF_OF_MISMATCH: "a step acts for a different principal than the TASK",
  DELEGATION_MISSING: "a delegation a step relies on is not in the bundle",
  DELEGATION_INVALID:
    "a relied-on delegation is not a DELEGATION of the step's principal for this agent, or starts after the step",
  DELEGATION_NOT_PERMITTED: "a relied-on delegation does not grant the TASK's action",
  DELEGATION_EXPIRED: "a step was signed at or after the expiry of a delegation it relies on",
  DELEGATION_REVOKED: "a step was signed at or after the revocation of a delegation it relies on",
  APPROVAL_MISMATCH: "an approval or rejection does not answer the proposal's approval request",
  APPROVAL_EXPIRED:
    "an approval came after its request expired, or the execution after the approval or proposal expired",
  RECEIPT_MISMATCH:
    "the receipt's schema, workflow, action, root, head or object manifest disagrees with the bundle",
  OUTCOME_MISMATCH: "the receipt's kind or outcome is not the one the head step implies",
  SUMMARY_MISMATCH: "the receipt's summary is not the one derived from the signed steps",
  ATTESTATION_INVALID: "an attestation names an object not in the bundle",
  TRUSTED_ATTESTER_INVALID: "a trusted attester has no valid identity of a kind that may attest",
  DISCLOSURE_MISMATCH: "a disclosed value does not hash to the digest its object signs",
  ISSUER_UNTRUSTED: "the receipt or a delegation is signed by a KID outside the verifier's pinned trust",
} as const;
export type EvidenceErrorCode = keyof typeof evidenceErrorCodes;

/** Warnings never make a bundle invalid; they say what the evidence cannot prove. */
export const evidenceWarningCodes = {
  ATTESTER_UNTRUSTED: "an attestation is signed by an identity that is not a trusted attester",
  ATTESTATION_MISSING:
    "an EXECUTION went to an MCP server the receipt names as trusted attester, and no attestation of it by that server covers the result",
  TRUST_NOT_PINNED:
    "no trusted KIDs were given: the bundle is consistent, but who issued it is taken from the bundle itself",
} as const;
export type EvidenceWarningCode = keyof typeof evidenceWarningCodes;

/** The checks of a verification, in the order they run and are reported. */
export const checkNames = [
  "format",
  "identities",
  "signatures",
  "chain",
  "calls",
  "delegations",
  "approvals",
  "receipt",
  "summary",
  "outcome",
  "attestations",
  "disclosures",
  "trust",
] as const;
export type CheckName = (typeof checkNames)[number];
