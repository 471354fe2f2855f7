import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Keyed HMAC-SHA256 of a key's secret (SPEC 2.2, 5.1). The HMAC key is an
 * installation secret (`COUNTERSIGN_KEY_HASH_SECRET`), so a leaked database
 * alone does not allow offline guessing.
 */
export function hashSecret(hashKey: Buffer, secret: string): Buffer {
  return createHmac("sha256", hashKey).update(secret, "utf8").digest();
}

// Compared against when the prefix is unknown, so that an unknown prefix costs
// the same HMAC and comparison as a known one (SPEC 5.1).
const DUMMY = Buffer.alloc(32, 0x5a);

/** Constant-time check of `secret` against the stored HMAC; `stored` undefined means unknown prefix. */
export function secretMatches(hashKey: Buffer, secret: string, stored: Buffer | undefined): boolean {
  return hmacMatches(hashSecret(hashKey, secret), stored);
}

/** The same check with the secret's HMAC already computed (it was sent along with the lookup). */
export function hmacMatches(computed: Buffer, stored: Buffer | undefined): boolean {
  const against = stored && stored.length === computed.length ? stored : DUMMY;
  const equal = timingSafeEqual(computed, against);
  return equal && against !== DUMMY;
}
