import * as ed from "@noble/ed25519";
import { sha512 } from "@noble/hashes/sha2.js";
import type { Ed25519Verify, Signer } from "./ed25519.js";
import { kidOf } from "./kid.js";

// noble 3 ships without a hash so it stays dependency-free; give it SHA-512 once.
ed.hashes.sha512 = sha512;

/**
 * A pure-JavaScript Signer (browser, portable verifier). Same RFC 8032
 * deterministic signatures as node:crypto, byte for byte.
 */
export function nobleSigner(seed: Uint8Array): Signer {
  if (seed.length !== 32) throw new RangeError("an Ed25519 seed is 32 bytes");
  const secret = Uint8Array.from(seed);
  const publicKey = ed.getPublicKey(secret);
  return { kid: kidOf(publicKey), publicKey, sign: (message) => ed.sign(message, secret) };
}

/**
 * zip215 false selects RFC 8032 / FIPS 186-5 rules, which is what OpenSSL
 * (node:crypto) applies: both implementations then accept exactly the same
 * signatures, so a bundle's validity never depends on the verifier used.
 */
export const nobleVerify: Ed25519Verify = (publicKey, message, signature) => {
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  try {
    return ed.verify(signature, message, publicKey, { zip215: false });
  } catch {
    return false;
  }
};
