/**
 * Binary values (public keys, signatures) travel as unpadded base64url
 * (RFC 4648 section 5): URL-safe and one spelling per value, so a tampered
 * encoding never decodes to the same bytes.
 */
const base64url = /^[A-Za-z0-9_-]*$/;

// Node's Buffer when there is one (servers); btoa/atob, which every browser and Node have, otherwise.
const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;

export function toBase64url(bytes: Uint8Array): string {
  if (NodeBuffer)
    return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url");
  return portableToBase64url(bytes);
}

/** Decodes strict unpadded base64url, or returns undefined for any other spelling. */
export function fromBase64url(text: string): Uint8Array | undefined {
  if (!base64url.test(text) || text.length % 4 === 1) return undefined;
  const bytes = NodeBuffer ? new Uint8Array(NodeBuffer.from(text, "base64url")) : portableFromBase64url(text);
  // Non-zero trailing bits would give a second spelling of the same bytes.
  return toBase64url(bytes) === text ? bytes : undefined;
}

export function portableToBase64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Decodes base64url already checked against the alphabet and length rule. */
export function portableFromBase64url(text: string): Uint8Array {
  const binary = atob(
    text.replace(/-/g, "+").replace(/_/g, "/") + "==".slice(0, (4 - (text.length % 4)) % 4),
  );
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** Length in characters of n bytes as unpadded base64url. */
export const base64urlLength = (n: number) => Math.ceil((n * 4) / 3);
