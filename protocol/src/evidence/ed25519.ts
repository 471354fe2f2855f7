import type { Kid } from "./kid.js";

/**
 * The two roles a key plays. A Signer holds a private key (a node:crypto
 * KeyObject on the server, noble bytes in a pure environment) and never
 * exposes it; verification needs only the public key bytes.
 */
export interface Signer {
  readonly kid: Kid;
  /** Raw 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array;
  /** Ed25519 signature (64 bytes) over the message bytes, RFC 8032 pure mode. */
  sign(message: Uint8Array): Uint8Array;
}

/** Verifies a 64-byte Ed25519 signature; false for any malformed input, never throws. */
export type Ed25519Verify = (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array) => boolean;

export const ed25519Sizes = { seed: 32, publicKey: 32, signature: 64 } as const;
