/**
 * Offline verification of a downloaded bundle: the evidence code's own verifier with the pure
 * Ed25519 implementation, run on the exact bytes of the file. Nothing is asked of the server.
 */
import { nobleVerify, sha256Digest, verifyBundle, type VerificationResult } from "./evidence.js";

export interface BundleCheck {
  sha256: string;
  result: VerificationResult | null;
  /** Set when the file is not JSON at all. */
  unreadable?: string;
}

export function checkBundleBytes(bytes: Uint8Array): BundleCheck {
  const sha256 = sha256Digest(bytes);
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return { sha256, result: null, unreadable: "the file is not a JSON bundle" };
  }
  return { sha256, result: verifyBundle(parsed, { verify: nobleVerify }) };
}
