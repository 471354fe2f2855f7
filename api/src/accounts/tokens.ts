import { createHash, randomBytes } from "node:crypto";

/**
 * Random tokens for sessions, e-mail links and invitations: 32 bytes as
 * base64url, held only by the person; the database keeps a SHA-256 of it (a
 * token already has full entropy, so a keyed or slow hash adds nothing).
 */
export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

export function tokenHash(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}
