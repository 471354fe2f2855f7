import { randomBytes, randomInt } from "node:crypto";
import { formatKey, type KeyEnvironment, type ParsedKey } from "./format.js";

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

export function generatePrefix(): string {
  let out = "";
  for (let i = 0; i < 12; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

/** A new key; the caller stores `prefix` and the HMAC of `secret`, and shows `key` once. */
export function generateKey(environment: KeyEnvironment): ParsedKey & { key: string } {
  const parts = { environment, prefix: generatePrefix(), secret: randomBytes(32).toString("base64url") };
  return { ...parts, key: formatKey(parts) };
}
