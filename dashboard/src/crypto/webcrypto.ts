/**
 * Ed25519 with WebCrypto: keys are made non-extractable where they need not leave the browser,
 * and signatures are over exactly the bytes the evidence code defines (signingInput for signed
 * objects, canonical JSON for identity documents, the challenge label for bindings).
 */
import {
  assembleSignedObject,
  canonicalBytes,
  identityGenesis,
  identitySuccessor,
  kidOf,
  signingInput,
  timestamp,
  toBase64url,
  type IdentityDocument,
  type ObjectBody,
  type SignedObject,
} from "./evidence.js";

const ED25519 = { name: "Ed25519" } as const;

export async function ed25519Sign(key: CryptoKey, message: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign(ED25519, key, message as BufferSource));
}

export async function rawPublicKey(key: CryptoKey): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.exportKey("raw", key));
}

/** A fresh key pair whose private half can never be exported. */
export async function generateKeyPair(
  extractable = false,
): Promise<{ privateKey: CryptoKey; publicKey: Uint8Array; kid: string }> {
  const pair = (await crypto.subtle.generateKey(ED25519, extractable, ["sign", "verify"])) as CryptoKeyPair;
  const publicKey = await rawPublicKey(pair.publicKey);
  return { privateKey: pair.privateKey, publicKey, kid: kidOf(publicKey) };
}

export async function signObjectWith<B extends ObjectBody>(
  key: CryptoKey,
  body: B,
): Promise<SignedObject<B>> {
  return assembleSignedObject(body, toBase64url(await ed25519Sign(key, signingInput(body))));
}

export async function genesisDocument(
  key: CryptoKey,
  publicKey: Uint8Array,
  actor_type: "person" | "principal",
  subject: { organization_id: string; id: string; name: string | null },
  /** The KID a new principal replaces (SPEC 2.1), null for a first one. */
  replaces: IdentityDocument["body"]["kid"] | null = null,
): Promise<IdentityDocument> {
  const body = identityGenesis({
    publicKey,
    actor_type,
    subject,
    issued_at: timestamp(new Date()),
    replaces,
  });
  return { body, signature: toBase64url(await ed25519Sign(key, canonicalBytes(body))) };
}

/** An identity's own last document: `replaced` by the KID that takes its place, signed with its key. */
export async function replacedDocument(
  key: CryptoKey,
  previous: IdentityDocument,
  replacedBy: IdentityDocument["body"]["kid"],
): Promise<IdentityDocument> {
  const body = identitySuccessor(previous, {
    status: "replaced",
    replaced_by: replacedBy,
    issued_at: timestamp(new Date()),
  });
  return { body, signature: toBase64url(await ed25519Sign(key, canonicalBytes(body))) };
}

/** The label the Cloud API checks a challenge signature over (it keeps a challenge from ever being a signed object). */
export const challengeMessage = (challenge: string) =>
  new TextEncoder().encode(`countersign-identity-challenge:${challenge}`);
