/** RFC 8785 canonical JSON and the `sha256:<hex>` digests built on it. */
export {
  canonicalJson,
  canonicalBytes,
  hasLoneSurrogate,
  sealCanonical,
  sealedText,
  sealStored,
  CanonicalJsonError,
} from "./json.js";
export { digestOf, sha256Digest, sha256Hex, isDigest, digestPattern, type Sha256Digest } from "./digest.js";
