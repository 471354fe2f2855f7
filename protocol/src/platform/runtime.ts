import type * as NodeCrypto from "node:crypto";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";

type WithBuiltins = { process?: { getBuiltinModule?: (id: string) => unknown } };

/**
 * node:crypto when this runs on Node.js, undefined in a browser. Looked up at
 * run time rather than imported, so a browser bundle of the protocol never
 * pulls in a Node built-in, while servers keep the native SHA-256 and Ed25519
 * (several times faster than the pure implementations).
 */
export const nodeCrypto = (globalThis as WithBuiltins).process?.getBuiltinModule?.("node:crypto") as
  typeof NodeCrypto | undefined;

const utf8 = new TextEncoder();

/** Lowercase hex SHA-256 of bytes or of a string's UTF-8 encoding, without node:crypto. */
export function pureSha256Hex(data: Uint8Array | string): string {
  return bytesToHex(sha256(typeof data === "string" ? utf8.encode(data) : data));
}

/**
 * Lowercase hex SHA-256 of bytes or of a string's UTF-8 encoding. On Node.js
 * the one-shot `crypto.hash`: unlike `createHash`, it leaves no Hash
 * object behind, each of which is a weak handle every young-generation GC
 * must visit (with about ten digests per decision, they were a quarter of
 * each scavenge's pause in the Gateway).
 */
export const sha256Hex: (data: Uint8Array | string) => string = nodeCrypto
  ? (data) => nodeCrypto.hash("sha256", data, "hex")
  : pureSha256Hex;

/**
 * Length in bytes of a string's UTF-8 encoding, counted without encoding it;
 * a lone surrogate counts as the 3 bytes of the U+FFFD that replaces it.
 */
export function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}
