/**
 * Binary values (public keys, signatures) travel as unpadded base64url
 * (RFC 4648 section 5): URL-safe and one spelling per value, so a tampered
 * encoding never decodes to the same bytes.
 */
const base64url = /^[A-Za-z0-9_-]*$/;

// Node's Buffer where there is one (the servers' hot path); btoa/atob in a browser (the dashboard).
const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;

export function toBase64url(bytes: Uint8Array): string {
  if (NodeBuffer) return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url");
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function decodeBase64url(text: string): Uint8Array {
  if (NodeBuffer) return new Uint8Array(NodeBuffer.from(text, "base64url"));
  const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** Decodes strict unpadded base64url, or returns undefined for any other spelling. */
export function fromBase64url(text: string): Uint8Array | undefined {
  if (!base64url.test(text) || text.length % 4 === 1) return undefined;
  const bytes = decodeBase64url(text);
  // Non-zero trailing bits would give a second spelling of the same bytes.
  return toBase64url(bytes) === text ? bytes : undefined;
}

/** Length in characters of n bytes as unpadded base64url. */
export const base64urlLength = (n: number) => Math.ceil((n * 4) / 3);
