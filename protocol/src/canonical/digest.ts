import { sha256Hex } from "../platform/runtime.js";
import { canonicalJson, sealedText } from "./json.js";

/**
 * Digests are written `sha256:<64 lowercase hex>` everywhere in the protocol
 * (arguments, policy, result, identity documents, bundles), so one parser and
 * one comparison serve them all.
 */
export type Sha256Digest = `sha256:${string}`;

export const digestPattern = /^sha256:[0-9a-f]{64}$/;

export function isDigest(value: unknown): value is Sha256Digest {
  return typeof value === "string" && digestPattern.test(value);
}

export { sha256Hex };

/** `sha256:<hex>` of raw bytes: the bundle SHA-256 is of this kind (the file as stored). */
export function sha256Digest(data: Uint8Array | string): Sha256Digest {
  return `sha256:${sha256Hex(data)}`;
}

// A sealed value never changes (sealCanonical), so neither does its digest: the identity
// documents a Gateway holds are digested for every receipt that names them.
const sealedDigests = new WeakMap<object, Sha256Digest>();

/** `sha256:<hex>` of a JSON value's RFC 8785 canonical text (arguments, policy, result digests). */
export function digestOf(value: unknown): Sha256Digest {
  if (typeof value !== "object" || value === null) return sha256Digest(canonicalJson(value));
  const known = sealedDigests.get(value);
  if (known !== undefined) return known;
  const text = sealedText(value);
  if (text === undefined) return sha256Digest(canonicalJson(value));
  const digest = sha256Digest(text);
  sealedDigests.set(value, digest);
  return digest;
}
