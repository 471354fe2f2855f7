import { sha256Hex } from "../canonical/index.js";

/**
 * A KID names a signer by its key: `kid_` + lowercase hex SHA-256 of the raw
 * 32-byte Ed25519 public key. Deriving it from the key (rather than assigning
 * it) lets any verifier check that an identity document's key is the one its
 * KID promises, and makes two keys with one KID a SHA-256 collision.
 */
export type Kid = `kid_${string}`;

export const kidPattern = /^kid_[0-9a-f]{64}$/;

export function kidOf(publicKey: Uint8Array): Kid {
  if (publicKey.length !== 32) throw new RangeError("an Ed25519 public key is 32 bytes");
  return `kid_${sha256Hex(publicKey)}`;
}

export function isKid(value: unknown): value is Kid {
  return typeof value === "string" && kidPattern.test(value);
}
