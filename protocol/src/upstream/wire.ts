import { z } from "zod";
import { identityDocumentSchema } from "../evidence/identity.js";
import { signedObjectSchema } from "../evidence/signed-object.js";
import { kidSchema } from "../evidence/fields.js";
import type { Kid } from "../evidence/kid.js";

/** Where the evidence travels in a tools/call request: `params._meta["service/evidence"]`. */
export const evidenceMetaKey = "service/evidence";
/** Where a service-aware upstream puts its ATTESTATION: `result._meta["service/attestation"]`. */
export const attestationMetaKey = "service/attestation";
/** Where a service-aware upstream says why it refused the evidence: `result._meta["service/refusal"]`. */
export const refusalMetaKey = "service/refusal";
/** Format version of the evidence envelope. */
export const evidenceFormatVersion = "0.1";
/** The claim of an attestation over a tool result. */
export const resultClaim = "service/tool-result@0.1";

/**
 * The most the evidence may weigh as canonical JSON. With the arguments (at
 * most 224 KiB) and the JSON-RPC envelope it keeps the request well below
 * what an MCP server takes in one body (1 MiB in the Gateway's own limits).
 */
export const maxEvidenceBytes = 512 * 1024;

/** Identity logs of one upstream's identity the Gateway accepts to send (documents as canonical JSON). */
export const maxServerIdentityBytes = 64 * 1024;

/**
 * The evidence: the path TASK → PROPOSAL (→ APPROVAL) → EXECUTION in order,
 * then the delegations it relies on; and the whole identity logs of every
 * signer (the Gateway, the principal, an approving person).
 */
export const upstreamEvidenceSchema = z.strictObject({
  service_evidence: z.literal(evidenceFormatVersion),
  objects: z.array(signedObjectSchema).min(3).max(200),
  identities: z.array(identityDocumentSchema).min(1).max(1000),
});
export type UpstreamEvidence = z.infer<typeof upstreamEvidenceSchema>;

/** Why a service-aware upstream refused; the Gateway records UPSTREAM_REFUSED whatever the reason. */
export const refusalReasons = [
  "EVIDENCE_MISSING",
  "EVIDENCE_MALFORMED",
  "GATEWAY_UNTRUSTED",
  "SIGNATURE_INVALID",
  "CHAIN_INVALID",
  "TOOL_MISMATCH",
  "ARGUMENTS_MISMATCH",
  "SERVER_MISMATCH",
  "APPROVAL_MISSING",
  "DELEGATION_INVALID",
  "EXPIRED",
  "REPLAYED",
] as const;
export type RefusalReason = (typeof refusalReasons)[number];

export const refusalSchema = z.strictObject({ reason: z.enum(refusalReasons), detail: z.string().max(1000) });
export type Refusal = z.infer<typeof refusalSchema>;

/** What the attestation states about the result it was attached to. */
export const resultStatementSchema = z.strictObject({ result_digest: z.string() });

/**
 * Where an MCP server declares that it is service-aware and which KID it
 * signs with: `capabilities.experimental["service/evidence"]` of its
 * initialize result. The Cloud API compares it with the registered identity
 * at registration and discovery.
 */
export const declarationCapabilityKey = "service/evidence";
export const declarationSchema = z.looseObject({
  service_evidence: z.literal(evidenceFormatVersion),
  server_kid: kidSchema,
});
export type Declaration = z.infer<typeof declarationSchema>;

/** The declaration of a server signing with `serverKid`, ready for `capabilities.experimental`. */
export const declarationOf = (serverKid: Kid) => ({
  [declarationCapabilityKey]: { service_evidence: evidenceFormatVersion, server_kid: serverKid },
});
