import canonicalize from "canonicalize";
import { sha256Hex, utf8Length } from "../platform/runtime.js";

/**
 * Digest of a policy document (SPEC 2.4, 2.6): `sha256:<hex>` over its RFC 8785
 * canonical JSON, so formatting, member order and number spelling never change
 * it. Kept here rather than in canonical/ so the policy library has no
 * dependency on the evidence code.
 */
export function policyDigest(document: unknown): string {
  const text = canonicalize(document);
  if (text === undefined) throw new TypeError("policyDigest: document is not JSON");
  return `sha256:${sha256Hex(text)}`;
}

/** Byte length of the canonical JSON, the measure of the 256 KiB document limit. */
export function canonicalSize(value: unknown): number {
  const text = canonicalize(value);
  return text === undefined ? 0 : utf8Length(text);
}
