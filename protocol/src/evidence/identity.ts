import { z } from "zod";
import { canonicalBytes, digestOf, type Sha256Digest } from "../canonical/index.js";
import type { Ed25519Verify, Signer } from "./ed25519.js";
import { fromBase64url, toBase64url } from "./encoding.js";
import {
  digestSchema,
  kidSchema,
  label,
  protocolVersion,
  publicKeySchema,
  signatureSchema,
  timestampSchema,
} from "./fields.js";
import { kidOf, type Kid } from "./kid.js";
import { defaultVerify } from "./sign.js";

/**
 * An identity document binds a KID to its public key, the kind of actor and
 * who it is. Every signer has a log of them, seq 0, 1, 2, ..., each naming the
 * digest of the one before and each signed by the key itself (proof of
 * possession). Replacing or revoking an identity is the next document in its
 * log; a log that forks is equivocation (see equivocation.ts).
 */
export const actorTypes = ["gateway", "principal", "person", "mcp_server"] as const;
export type ActorType = (typeof actorTypes)[number];

export const identityStatuses = ["active", "replaced", "revoked"] as const;
export type IdentityStatus = (typeof identityStatuses)[number];

export const identitySubjectSchema = z.strictObject({
  organization_id: label(),
  /** The gateway id, user id, MCP server id, or the organization id for the principal. */
  id: label(),
  name: label().nullable(),
});

export const identityBodySchema = z
  .strictObject({
    protocol: z.literal(protocolVersion),
    type: z.literal("IDENTITY"),
    kid: kidSchema,
    algorithm: z.literal("Ed25519"),
    public_key: publicKeySchema,
    actor_type: z.enum(actorTypes),
    subject: identitySubjectSchema,
    seq: z.int().min(0).max(1_000_000),
    prev: digestSchema.nullable(),
    status: z.enum(identityStatuses),
    replaces: kidSchema.nullable(),
    replaced_by: kidSchema.nullable(),
    issued_at: timestampSchema,
  })
  .refine((b) => (b.seq === 0) === (b.prev === null), "prev is null exactly for seq 0")
  .refine(
    (b) => (b.status === "replaced") === (b.replaced_by !== null),
    "replaced_by is set exactly when replaced",
  )
  .refine((b) => b.seq === 0 || b.replaces === null, "replaces is set only on seq 0");

export const identityDocumentSchema = z.strictObject({
  body: identityBodySchema,
  signature: signatureSchema,
});

export type IdentityBody = z.infer<typeof identityBodySchema>;
export type IdentityDocument = z.infer<typeof identityDocumentSchema>;
export type IdentitySubject = z.infer<typeof identitySubjectSchema>;

/** Digest of a document: over its body, so the (deterministic) signature bytes never change it. */
export const identityDigest = (doc: IdentityDocument): Sha256Digest => digestOf(doc.body);

/** The first document of an identity (seq 0). */
export function identityGenesis(input: {
  publicKey: Uint8Array;
  actor_type: ActorType;
  subject: IdentitySubject;
  issued_at: string;
  replaces?: Kid | null;
}): IdentityBody {
  return identityBodySchema.parse({
    protocol: protocolVersion,
    type: "IDENTITY",
    kid: kidOf(input.publicKey),
    algorithm: "Ed25519",
    public_key: toBase64url(input.publicKey),
    actor_type: input.actor_type,
    subject: input.subject,
    seq: 0,
    prev: null,
    status: "active",
    replaces: input.replaces ?? null,
    replaced_by: null,
    issued_at: input.issued_at,
  });
}

/** The next document of a log: a revocation, a replacement, or a re-statement of the subject. */
export function identitySuccessor(
  previous: IdentityDocument,
  change: { status: IdentityStatus; replaced_by?: Kid | null; subject?: IdentitySubject; issued_at: string },
): IdentityBody {
  return identityBodySchema.parse({
    ...previous.body,
    subject: change.subject ?? previous.body.subject,
    seq: previous.body.seq + 1,
    prev: identityDigest(previous),
    status: change.status,
    replaces: null,
    replaced_by: change.replaced_by ?? null,
    issued_at: change.issued_at,
  });
}

/** Self-signs a document body with the identity's own key. */
export function signIdentity(body: IdentityBody, signer: Signer): IdentityDocument {
  if (body.kid !== signer.kid) throw new Error("an identity document is signed by its own key");
  return { body, signature: toBase64url(signer.sign(canonicalBytes(body))) };
}

export type IdentityProblem = "IDENTITY_INVALID";

/**
 * Checks one document on its own: shape, KID = hash of the key, and the
 * self-signature over the canonical body. History is checked by identityLog.
 */
export function verifyIdentityDocument(
  doc: unknown,
  verify: Ed25519Verify = defaultVerify,
): { ok: true; document: IdentityDocument } | { ok: false; code: IdentityProblem; message: string } {
  const parsed = identityDocumentSchema.safeParse(doc);
  if (!parsed.success)
    return { ok: false, code: "IDENTITY_INVALID", message: "identity document is malformed" };
  const { body, signature } = parsed.data;
  const publicKey = fromBase64url(body.public_key);
  const sig = fromBase64url(signature);
  if (!publicKey || !sig)
    return { ok: false, code: "IDENTITY_INVALID", message: "identity key or signature is not base64url" };
  if (kidOf(publicKey) !== body.kid) {
    return { ok: false, code: "IDENTITY_INVALID", message: "KID is not the SHA-256 of the public key" };
  }
  if (!verify(publicKey, canonicalBytes(body), sig)) {
    return {
      ok: false,
      code: "IDENTITY_INVALID",
      message: "identity document self-signature does not verify",
    };
  }
  return { ok: true, document: parsed.data };
}

/** The public key bytes of a (verified) document. */
export const identityPublicKey = (doc: IdentityDocument): Uint8Array => fromBase64url(doc.body.public_key)!;
