/**
 * Binary values (public keys, signatures) travel as unpadded base64url
 * (RFC 4648 section 5): URL-safe and one spelling per value, so a tampered
 * encoding never decodes to the same bytes.
 */
const base64url = /^[A-Za-z0-9_-]*$/;

export function toBase64url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url");
}

/** Decodes strict unpadded base64url, or returns undefined for any other spelling. */
export function fromBase64url(text: string): Uint8Array | undefined {
  if (!base64url.test(text) || text.length % 4 === 1) return undefined;
  const bytes = new Uint8Array(Buffer.from(text, "base64url"));
  // Non-zero trailing bits would give a second spelling of the same bytes.
  return toBase64url(bytes) === text ? bytes : undefined;
}

/** Length in characters of n bytes as unpadded base64url. */
export const base64urlLength = (n: number) => Math.ceil((n * 4) / 3);
