import { z } from "zod";
import { canonicalJson, sha256Digest, type Sha256Digest } from "../canonical/index.js";
import { objectIdSchema } from "./fields.js";
import type { IdentityDocument } from "./identity.js";
import { issueReceipt, type ReceiptInput } from "./receipt.js";
import type { BodyOf, SignedObject } from "./signed-object.js";

export const bundleFormatVersion = "0.1" as const;
export const bundleContentType = "application/vnd.service.bundle+json";
export const bundleFileName = (receiptObjectId: string) => `receipt-${receiptObjectId}.svcbundle`;

/** A revealed value whose digest an object signs: the call's arguments (TASK) or the result content (RESULT). */
export const disclosureSchema = z.strictObject({
  object_id: objectIdSchema,
  field: z.enum(["arguments", "result"]),
  value: z.json(),
});
export type Disclosure = z.infer<typeof disclosureSchema>;

/**
 * The envelope of the bundle file (SPEC 2.8). Objects and identity documents
 * are checked one by one by the verifier, so one malformed entry is reported
 * by name instead of making the whole file unreadable.
 */
export const bundleEnvelopeSchema = z.strictObject({
  service_bundle: z.literal(bundleFormatVersion),
  receipt: z.unknown(),
  objects: z.array(z.unknown()),
  identities: z.array(z.unknown()),
  disclosures: z.array(z.unknown()).optional(),
});

export interface Bundle {
  service_bundle: typeof bundleFormatVersion;
  receipt: SignedObject<BodyOf<"RECEIPT">>;
  objects: SignedObject[];
  identities: IdentityDocument[];
  disclosures?: Disclosure[];
}

/** Issues the receipt and assembles the bundle around it: path first, then supporting objects. */
export function issueBundle(input: ReceiptInput & { disclosures?: Disclosure[] }): Bundle {
  const receipt = issueReceipt(input);
  return {
    service_bundle: bundleFormatVersion,
    receipt,
    objects: [...input.path, ...input.supporting],
    identities: [...input.identities],
    ...(input.disclosures && input.disclosures.length > 0 ? { disclosures: input.disclosures } : {}),
  };
}

/**
 * The stored file: canonical JSON, so the same bundle always has the same
 * bytes and `bundle_sha256` can be recomputed from the bundle alone.
 */
export function serializeBundle(bundle: Bundle): string {
  return canonicalJson(bundle);
}

/** `bundle_sha256` and `bundle_size` of SPEC 2.8, over the file's bytes. */
export function bundleFacts(file: string | Uint8Array): { bundle_sha256: Sha256Digest; bundle_size: number } {
  const bytes = typeof file === "string" ? new TextEncoder().encode(file) : file;
  return { bundle_sha256: sha256Digest(bytes), bundle_size: bytes.byteLength };
}
