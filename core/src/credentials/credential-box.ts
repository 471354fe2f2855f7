import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * Secrets the service must use itself later (webhook signing secrets, MCP
 * server credentials) are stored encrypted with AES-256-GCM under the
 * installation's COUNTERSIGN_CREDENTIAL_KEY. Stored form: a version byte,
 * the 12-byte nonce, the 16-byte tag, then the ciphertext.
 *
 * `context` (e.g. "webhook_endpoint:<id>") is bound as associated data, so a
 * ciphertext copied onto another row does not decrypt there.
 */
const VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export class CredentialKeyError extends Error {}

function checkKey(key: Buffer): void {
  if (key.length !== 32) throw new CredentialKeyError("the credential key must be 32 bytes");
}

export function encryptCredential(key: Buffer, plaintext: string, context: string): Buffer {
  checkKey(key);
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  cipher.setAAD(Buffer.from(context, "utf8"));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), nonce, cipher.getAuthTag(), body]);
}

/** Throws when the key, the context or the stored bytes are not the ones it was encrypted with. */
export function decryptCredential(key: Buffer, stored: Buffer, context: string): string {
  checkKey(key);
  if (stored.length < 1 + NONCE_BYTES + TAG_BYTES || stored[0] !== VERSION) {
    throw new CredentialKeyError("not a stored credential of this version");
  }
  const nonce = stored.subarray(1, 1 + NONCE_BYTES);
  const tag = stored.subarray(1 + NONCE_BYTES, 1 + NONCE_BYTES + TAG_BYTES);
  const decipher = createDecipheriv("aes-256-gcm", key, nonce);
  decipher.setAAD(Buffer.from(context, "utf8"));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([
      decipher.update(stored.subarray(1 + NONCE_BYTES + TAG_BYTES)),
      decipher.final(),
    ]).toString("utf8");
  } catch {
    throw new CredentialKeyError("the credential does not decrypt with this key and context");
  }
}
