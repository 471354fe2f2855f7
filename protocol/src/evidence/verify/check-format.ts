import { bundleEnvelopeSchema, disclosureSchema, type Disclosure } from "../bundle.js";
import { identityDocumentSchema, type IdentityDocument } from "../identity.js";
import { signedObjectSchema, type BodyOf, type SignedObject } from "../signed-object.js";
import type { Findings } from "./result.js";

export interface ParsedBundle {
  receipt: SignedObject<BodyOf<"RECEIPT">>;
  objects: SignedObject[];
  listedIds: string[];
  identityDocuments: IdentityDocument[];
  disclosures: Disclosure[];
}

const idOf = (raw: unknown): string | undefined =>
  raw !== null && typeof raw === "object" && typeof (raw as { id?: unknown }).id === "string"
    ? (raw as { id: string }).id
    : undefined;

/**
 * Check `format`: the envelope and every entry against its schema. Returns
 * undefined when nothing further can be checked (no envelope or no receipt).
 */
export function checkFormat(input: unknown, findings: Findings): ParsedBundle | undefined {
  findings.run("format");
  const envelope = bundleEnvelopeSchema.safeParse(input);
  if (!envelope.success) {
    findings.error(
      "format",
      "BUNDLE_MALFORMED",
      "not a service_bundle 0.1 file (service_bundle, receipt, objects, identities)",
    );
    return undefined;
  }
  const receipt = signedObjectSchema.safeParse(envelope.data.receipt);
  if (!receipt.success || receipt.data.body.type !== "RECEIPT") {
    findings.error("format", "OBJECT_MALFORMED", "the receipt is not a well-formed RECEIPT object", {
      ...(idOf(envelope.data.receipt) ? { object_id: idOf(envelope.data.receipt)! } : {}),
    });
    return undefined;
  }
  const objects: SignedObject[] = [];
  const listedIds: string[] = [];
  const seen = new Set<string>([receipt.data.id]);
  envelope.data.objects.forEach((raw, index) => {
    const id = idOf(raw);
    if (id !== undefined) listedIds.push(id);
    const parsed = signedObjectSchema.safeParse(raw);
    if (!parsed.success) {
      findings.error(
        "format",
        "OBJECT_MALFORMED",
        `objects[${index}] does not match the schema of its type`,
        id ? { object_id: id } : {},
      );
      return;
    }
    if (seen.has(parsed.data.id)) {
      findings.error("format", "OBJECT_DUPLICATE", `objects[${index}] repeats an object id`, {
        object_id: parsed.data.id,
      });
      return;
    }
    seen.add(parsed.data.id);
    objects.push(parsed.data as SignedObject);
  });
  const identityDocuments: IdentityDocument[] = [];
  envelope.data.identities.forEach((raw, index) => {
    const parsed = identityDocumentSchema.safeParse(raw);
    if (parsed.success) identityDocuments.push(parsed.data);
    else
      findings.error(
        "format",
        "IDENTITY_INVALID",
        `identities[${index}] is not a well-formed identity document`,
      );
  });
  const disclosures: Disclosure[] = [];
  (envelope.data.disclosures ?? []).forEach((raw, index) => {
    const parsed = disclosureSchema.safeParse(raw);
    if (parsed.success) disclosures.push(parsed.data);
    else findings.error("format", "BUNDLE_MALFORMED", `disclosures[${index}] is malformed`);
  });
  return {
    receipt: receipt.data as SignedObject<BodyOf<"RECEIPT">>,
    objects,
    listedIds,
    identityDocuments,
    disclosures,
  };
}
