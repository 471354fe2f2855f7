import { createHmac } from "node:crypto";

/**
 * Marks a browser that signed in to this account under its current password:
 * such a browser is not counted against the per-address sign-in limit, so an
 * attacker guessing one address cannot lock its owner out. It changes with
 * the password hash, so it never outlives a password change.
 */
export function knownBrowserMark(hashKey: Buffer, userId: string, passwordHash: string): string {
  return createHmac("sha256", hashKey).update(`known:${userId}:${passwordHash}`).digest("base64url");
}
