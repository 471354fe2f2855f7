import {
  bundleFacts,
  issueBundle,
  serializeBundle,
  timestamp,
  type IdentityDocument,
  type Kid,
  type SignedObject,
  type StepBody,
} from "@countersign/protocol/evidence";
import type { GatewayIdentity } from "../identities/index.js";

export interface IssuedReceipt {
  receiptObjectId: string;
  threadId: string;
  headObjectId: string;
  kind: "execution" | "authorization" | "closure";
  outcome: "succeeded" | "failed" | "final" | "pending" | "granted";
  file: Buffer;
  bundleSha256: string;
  bundleSize: number;
}

/**
 * The receipt over a path and its bundle file (SPEC 2.8), ready to store:
 * the path TASK → head, the delegations it relies on, and every signer's
 * identity log (each KID once).
 */
export function issueStoredReceipt(
  identity: GatewayIdentity,
  path: readonly SignedObject<StepBody>[],
  supporting: readonly SignedObject[],
  identities: readonly IdentityDocument[],
  now: Date,
  trustedAttesters: readonly Kid[] = [],
): IssuedReceipt {
  const seen = new Set<string>();
  const documents = [...identity.documents, ...identities].filter((d) => {
    const key = `${d.body.kid}:${d.body.seq}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const bundle = issueBundle({
    issuer: identity.signer,
    issued_at: timestamp(now),
    path,
    supporting,
    identities: documents,
    trusted_attesters: trustedAttesters,
  });
  const text = serializeBundle(bundle);
  const file = Buffer.from(text, "utf8");
  const facts = bundleFacts(file);
  const payload = bundle.receipt.body.payload;
  return {
    receiptObjectId: bundle.receipt.id,
    threadId: payload.root,
    headObjectId: payload.head,
    kind: payload.kind,
    outcome: payload.outcome,
    file,
    bundleSha256: facts.bundle_sha256,
    bundleSize: facts.bundle_size,
  };
}
