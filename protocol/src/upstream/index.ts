/**
 * Service-aware upstreams (docs/evidence.md section 11): the evidence the
 * Gateway hands an MCP server with a tools/call, the server's check of it,
 * the ATTESTATION the server returns over its result, and the Gateway's
 * check of that attestation. Pure, like the rest of the protocol.
 */
export * from "./wire.js";
export { upstreamEvidence, type EvidenceInput, type BuiltEvidence } from "./evidence.js";
export { checkUpstreamEvidence, type EvidenceExpectation, type EvidenceCheck } from "./check-evidence.js";
export {
  attestResult,
  attachAttestation,
  withoutAttestation,
  checkAttestation,
  type AttestationCheck,
} from "./attestation.js";
