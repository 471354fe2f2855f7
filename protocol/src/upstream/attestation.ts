import { digestOf } from "../canonical/index.js";
import type { Ed25519Verify, Signer } from "../evidence/ed25519.js";
import { timestamp, type ObjectId } from "../evidence/fields.js";
import { verifyIdentityDocument, type IdentityDocument } from "../evidence/identity.js";
import { identityStates } from "../evidence/identity-log.js";
import type { Kid } from "../evidence/kid.js";
import { objectBody, signObject } from "../evidence/object.js";
import { signedObjectSchema, type BodyOf, type SignedObject } from "../evidence/signed-object.js";
import { defaultVerify } from "../evidence/sign.js";
import { checkSignedObject } from "../evidence/verify-object.js";
import { attestationMetaKey, resultClaim, resultStatementSchema } from "./wire.js";

type ToolResult = Record<string, unknown> & { _meta?: Record<string, unknown> };

/**
 * A tool result without the attestation riding in it: what the attestation
 * covers, what the Gateway digests into its RESULT and stores. A `_meta`
 * left empty goes too, so both sides digest the same value.
 */
export function withoutAttestation(result: ToolResult): ToolResult {
  const meta = result._meta;
  if (!meta || !(attestationMetaKey in meta)) return result;
  const { [attestationMetaKey]: _attestation, ...rest } = meta;
  const { _meta: _dropped, ...plain } = result;
  return Object.keys(rest).length ? { ...plain, _meta: rest } : plain;
}

/** The ATTESTATION an upstream signs over the result it returns for an EXECUTION. */
export function attestResult(
  signer: Signer,
  executionId: ObjectId,
  result: ToolResult,
  now: Date,
): SignedObject<BodyOf<"ATTESTATION">> {
  // What travels is JSON: digest what the Gateway will parse, not properties JSON drops.
  const delivered = JSON.parse(JSON.stringify(withoutAttestation(result))) as ToolResult;
  return signObject(
    objectBody({
      type: "ATTESTATION",
      actor: signer.kid,
      on_behalf_of: null,
      thread: null,
      parent: null,
      delegations: [],
      issued_at: timestamp(now),
      payload: {
        subject: executionId,
        claim: resultClaim,
        statement: { result_digest: digestOf(delivered) },
      },
    }),
    signer,
  ) as SignedObject<BodyOf<"ATTESTATION">>;
}

/** A result with its attestation in `_meta["service/attestation"]`. */
export function attachAttestation(result: ToolResult, attestation: SignedObject): ToolResult {
  return { ...result, _meta: { ...(result._meta ?? {}), [attestationMetaKey]: attestation } };
}

export type AttestationCheck =
  | { ok: true; attestation: SignedObject<BodyOf<"ATTESTATION">>; result: ToolResult }
  | { ok: false; code: "ATTESTATION_MISSING" | "ATTESTATION_INVALID"; detail: string; result: ToolResult };

/**
 * The Gateway's check of an upstream's answer: an ATTESTATION signed by the
 * server identity it registered, of the EXECUTION it sent, stating the digest
 * of exactly the result received. The result comes back without the
 * attestation either way.
 */
export function checkAttestation(
  received: ToolResult,
  expected: {
    serverKid: Kid;
    identities: readonly IdentityDocument[];
    executionId: string;
    verify?: Ed25519Verify;
  },
): AttestationCheck {
  const result = withoutAttestation(received);
  const raw = received._meta?.[attestationMetaKey];
  if (raw === undefined)
    return {
      ok: false,
      code: "ATTESTATION_MISSING",
      detail: "the service-aware MCP server returned no attestation",
      result,
    };
  const invalid = (detail: string) => ({ ok: false, code: "ATTESTATION_INVALID", detail, result }) as const;
  const parsed = signedObjectSchema.safeParse(raw);
  if (!parsed.success || parsed.data.body.type !== "ATTESTATION")
    return invalid("the attestation is not an ATTESTATION object");
  const attestation = parsed.data as SignedObject<BodyOf<"ATTESTATION">>;
  if (attestation.body.actor !== expected.serverKid)
    return invalid("the attestation is not signed by the MCP server's registered identity");
  const verify = expected.verify ?? defaultVerify;
  const documents = expected.identities.filter((d) => verifyIdentityDocument(d, verify).ok);
  const checked = checkSignedObject(attestation, identityStates(documents).get(expected.serverKid), verify);
  if (!checked.ok) return invalid(`the attestation does not verify (${checked.code})`);
  const p = attestation.body.payload;
  if (p.subject !== expected.executionId || p.claim !== resultClaim)
    return invalid("the attestation is about another EXECUTION or claim");
  const statement = resultStatementSchema.safeParse(p.statement);
  let digest: string | null;
  try {
    digest = digestOf(result);
  } catch {
    digest = null;
  }
  if (!statement.success || statement.data.result_digest !== digest)
    return invalid("the attestation states another result than the one received");
  return { ok: true, attestation, result };
}
