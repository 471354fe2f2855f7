import { canonicalBytes } from "@countersign/protocol/canonical";
import type { GatewayCode } from "@countersign/protocol/errors";
import type { IdentityDocument, SignedObject, StepBody } from "@countersign/protocol/evidence";
import {
  checkAttestation,
  evidenceMetaKey,
  maxServerIdentityBytes,
  refusalMetaKey,
  upstreamEvidence,
  type UpstreamEvidence,
} from "@countersign/protocol/upstream";
import type { GatewayIdentity } from "../identities/index.js";

/** What a call to a service-aware upstream carries and is checked against. */
export interface ServiceAwareCall {
  serverKid: string;
  /** The server identity's log, as registered: the attestation is checked against it and the receipt carries it. */
  serverIdentities: IdentityDocument[];
  evidence: UpstreamEvidence;
}

export type Prepared =
  { ok: true; call: ServiceAwareCall } | { ok: false; code: GatewayCode; detail: string };

/** The registered identity of a service-aware MCP server, read before anything is signed or consumed. */
export function serverIdentityOf(
  documents: IdentityDocument[],
): { ok: true; documents: IdentityDocument[] } | { ok: false; code: GatewayCode; detail: string } {
  if (documents.length === 0) {
    return {
      ok: false,
      code: "UPSTREAM_IDENTITY_UNKNOWN",
      detail: "the MCP server's registered identity is not known; an owner or admin must register it again",
    };
  }
  if (canonicalBytes(documents).length > maxServerIdentityBytes) {
    return {
      ok: false,
      code: "UPSTREAM_IDENTITY_TOO_LARGE",
      detail:
        "the MCP server's identity log is larger than 64 KiB; an owner or admin must register a new identity",
    };
  }
  return { ok: true, documents };
}

/**
 * The evidence for a claimed call (path up to the EXECUTION, the delegation,
 * the signers' identity logs), refused when it exceeds the bound: it is
 * built from signed objects only, so the refusal repeats on every retry.
 */
export function prepareEvidence(
  identity: GatewayIdentity,
  c: {
    serverKid: string;
    serverIdentities: IdentityDocument[];
    path: SignedObject<StepBody>[];
    delegation: SignedObject;
    /** The identity logs of the principal and of an approving person. */
    signerIdentities: IdentityDocument[];
  },
): Prepared {
  const built = upstreamEvidence({
    path: c.path,
    delegations: [c.delegation],
    identities: [...identity.documents, ...c.signerIdentities],
  });
  if (!built.ok) {
    return {
      ok: false,
      code: "UPSTREAM_EVIDENCE_TOO_LARGE",
      detail: `the evidence for this call is ${built.bytes} bytes, more than a service-aware MCP server takes; it will not fit on a retry either`,
    };
  }
  return {
    ok: true,
    call: { serverKid: c.serverKid, serverIdentities: c.serverIdentities, evidence: built.evidence },
  };
}

/** The request metadata that hands the evidence to the upstream. */
export const evidenceMeta = (call: ServiceAwareCall) => ({ [evidenceMetaKey]: call.evidence });

export type Accepted =
  | { kind: "result"; result: Record<string, unknown>; isError: boolean; attestation: SignedObject }
  | {
      kind: "failure";
      code: Extract<GatewayCode, "UPSTREAM_REFUSED" | "ATTESTATION_MISSING" | "ATTESTATION_INVALID">;
    };

/**
 * A service-aware upstream's answer: a refusal of the evidence
 * (UPSTREAM_REFUSED: it did not act), or a result whose attestation must be
 * the registered server's, over this EXECUTION and exactly this result.
 */
export function acceptAttested(
  call: ServiceAwareCall,
  executionId: string,
  result: Record<string, unknown>,
  isError: boolean,
): Accepted {
  const meta = result._meta as Record<string, unknown> | undefined;
  if (isError && meta && refusalMetaKey in meta) return { kind: "failure", code: "UPSTREAM_REFUSED" };
  const checked = checkAttestation(result, {
    serverKid: call.serverKid as never,
    identities: call.serverIdentities,
    executionId,
  });
  if (!checked.ok) return { kind: "failure", code: checked.code };
  return { kind: "result", result: checked.result, isError, attestation: checked.attestation };
}
