import { canonicalBytes } from "../canonical/index.js";
import type { IdentityDocument } from "../evidence/identity.js";
import type { SignedObject } from "../evidence/signed-object.js";
import { evidenceFormatVersion, maxEvidenceBytes, type UpstreamEvidence } from "./wire.js";

export interface EvidenceInput {
  /** TASK → PROPOSAL (→ APPROVAL) → EXECUTION. */
  path: readonly SignedObject[];
  /** The delegations the steps rely on. */
  delegations: readonly SignedObject[];
  /** Whole identity logs of every signer on the path. */
  identities: readonly IdentityDocument[];
}

export type BuiltEvidence =
  { ok: true; evidence: UpstreamEvidence; bytes: number } | { ok: false; bytes: number };

/**
 * The evidence the Gateway hands a service-aware upstream, and whether it
 * stays within `maxEvidenceBytes`: the answer depends only on signed
 * objects and identity logs, so an oversized call is oversized on every retry.
 */
export function upstreamEvidence(e: EvidenceInput, limit = maxEvidenceBytes): BuiltEvidence {
  const evidence: UpstreamEvidence = {
    service_evidence: evidenceFormatVersion,
    objects: [...e.path, ...e.delegations] as UpstreamEvidence["objects"],
    identities: [...e.identities] as UpstreamEvidence["identities"],
  };
  const bytes = canonicalBytes(evidence).length;
  return bytes <= limit ? { ok: true, evidence, bytes } : { ok: false, bytes };
}
