import { decryptCredential, encryptCredential } from "@countersign/core/credentials";

// The row id is bound into the ciphertext, so a secret copied onto another
// endpoint's row does not decrypt there.
const context = (endpointId: string) => `webhook_endpoint:${endpointId}`;

export function sealSecret(key: Buffer, endpointId: string, secret: string): Buffer {
  return encryptCredential(key, secret, context(endpointId));
}

export function openSecret(key: Buffer, endpointId: string, stored: Buffer): string {
  return decryptCredential(key, stored, context(endpointId));
}

/**
 * The secrets a delivery is signed with now (SPEC 6.3): the current one, and
 * the previous one while its 24 hours after the rotation last.
 */
export function signingSecrets(
  key: Buffer,
  row: {
    id: string;
    secret_encrypted: Buffer;
    previous_secret_encrypted: Buffer | null;
    previous_secret_until: Date | null;
  },
  now: Date,
): string[] {
  const secrets = [openSecret(key, row.id, row.secret_encrypted)];
  if (row.previous_secret_encrypted && row.previous_secret_until && row.previous_secret_until > now) {
    secrets.push(openSecret(key, row.id, row.previous_secret_encrypted));
  }
  return secrets;
}
