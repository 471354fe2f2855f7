import type { Ed25519Verify, Signer } from "./ed25519.js";
import { canonicalJson, sealCanonical } from "../canonical/index.js";
import { fromBase64url, toBase64url } from "./encoding.js";
import type { ObjectId } from "./fields.js";
import { protocolVersion } from "./fields.js";
import { objectIdOfBytes, signingInput } from "./object-id.js";
import { objectBodySchema, type ObjectBody, type SignedObject, type StepBody } from "./signed-object.js";

type WithoutProtocol<B> = B extends unknown ? Omit<B, "protocol"> : never;
export type ObjectBodyInput = WithoutProtocol<ObjectBody>;

/**
 * Builds and checks an unsigned body. The Cloud API hands the result (or its
 * signingInput bytes) to a browser for a person or the principal to sign in
 * advance; the Gateway signs its own right away with signObject.
 */
export function objectBody<B extends ObjectBodyInput>(input: B): Extract<ObjectBody, { type: B["type"] }> {
  return objectBodySchema.parse({ protocol: protocolVersion, ...input }) as Extract<
    ObjectBody,
    { type: B["type"] }
  >;
}

/**
 * The body of an object the Gateway builds itself from typed values on the
 * decision's hot path: objectBody without the schema check (zod was about
 * 6% of the Gateway's CPU per decision under `make profile`). The types
 * fix its shape; every test that verifies a receipt offline checks these
 * bodies against the schema (verifyBundle parses each object).
 */
export function ownBody<B extends ObjectBodyInput>(input: B): Extract<ObjectBody, { type: B["type"] }> {
  return { protocol: protocolVersion, ...input } as unknown as Extract<ObjectBody, { type: B["type"] }>;
}

type StepInput =
  WithoutProtocol<StepBody> extends infer S
    ? S extends unknown
      ? Omit<S, "thread" | "parent">
      : never
    : never;

/** The body of the step after `parent` in its thread: thread and parent links filled in. */
export function followingStep<B extends StepInput>(
  parent: SignedObject<StepBody>,
  input: B,
  build: typeof objectBody = objectBody,
): Extract<ObjectBody, { type: B["type"] }> {
  const thread = parent.body.thread ?? parent.id;
  return build({ ...input, thread, parent: parent.id } as ObjectBodyInput) as Extract<
    ObjectBody,
    { type: B["type"] }
  >;
}

/** followingStep for a step the Gateway signs itself (see ownBody). */
export const followingOwnStep = <B extends StepInput>(parent: SignedObject<StepBody>, input: B) =>
  followingStep(parent, input, ownBody);

/**
 * Signs a body: one canonicalization, one SHA-256 for the id, one Ed25519 signature. The body
 * and the signed object are sealed with their canonical text (canonical/json.ts): a bundle that
 * holds the object serializes it without walking it again. Neither may change afterwards (a
 * changed body would not match its signature anyway).
 */
export function signObject<B extends ObjectBody>(body: B, signer: Signer): SignedObject<B> {
  if (body.actor !== signer.kid) throw new Error("the signer must be the body's actor");
  const text = canonicalJson(body);
  const bytes = new TextEncoder().encode(text);
  const signed = { id: objectIdOfBytes(bytes), body, signature: toBase64url(signer.sign(bytes)) };
  sealCanonical(body, text);
  sealCanonical(
    signed,
    `{"body":${text},"id":${JSON.stringify(signed.id)},"signature":${JSON.stringify(signed.signature)}}`,
  );
  return signed;
}

/** Puts together a body and a signature made elsewhere (a browser); verify it before trusting it. */
export function assembleSignedObject<B extends ObjectBody>(body: B, signature: string): SignedObject<B> {
  return { id: objectIdOfBytes(signingInput(body)), body, signature };
}

/** Checks only the cryptography: the id is the body's hash and the signature is the actor's. */
export function checkObjectCrypto(
  object: SignedObject,
  publicKey: Uint8Array,
  verify: Ed25519Verify,
): "ok" | "OBJECT_ID_MISMATCH" | "SIGNATURE_INVALID" {
  const bytes = signingInput(object.body);
  if (objectIdOfBytes(bytes) !== object.id) return "OBJECT_ID_MISMATCH";
  const signature = fromBase64url(object.signature);
  if (!signature || !verify(publicKey, bytes, signature)) return "SIGNATURE_INVALID";
  return "ok";
}

export type { ObjectId };
