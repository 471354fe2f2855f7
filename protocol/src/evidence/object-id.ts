import { canonicalJson, sha256Hex } from "../canonical/index.js";
import type { ObjectId } from "./fields.js";
import type { ObjectBody } from "./signed-object.js";

/**
 * The signature input and the id of an object are the same bytes: the RFC
 * 8785 canonical JSON of its body as UTF-8. The id is `ko_` + hex SHA-256 of
 * them, so an id names exactly one body and a parent link is a hash link.
 */
export function signingInput(body: ObjectBody): Uint8Array {
  return new TextEncoder().encode(canonicalJson(body));
}

export function objectIdOfBytes(bytes: Uint8Array): ObjectId {
  return `ko_${sha256Hex(bytes)}`;
}

export function objectId(body: ObjectBody): ObjectId {
  return objectIdOfBytes(signingInput(body));
}
