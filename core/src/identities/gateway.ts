import {
  identityGenesis,
  nodeSigner,
  signIdentity,
  timestamp,
  type IdentityDocument,
  type Signer,
} from "@countersign/protocol/evidence";
import { sealStored } from "@countersign/protocol/canonical";
import type { Queryable } from "../store/queryable.js";
import { identityLogOf, insertGatewayIdentity, storedDocument } from "./identity-store.js";

/** The installation's Gateway identity (SPEC 2.8 `issuer_kid`): what signs TASK, PROPOSAL, EXECUTION, RESULT and receipts. */
export interface GatewayIdentity {
  signer: Signer;
  /** Its identity log as stored, carried in every bundle. */
  documents: IdentityDocument[];
}

/**
 * Registers the Gateway identity of this signing key, or reads the one
 * registered before. Every replica (and the Cloud API, which signs closure
 * receipts) holds the same key; the first to start writes the genesis
 * document and the others adopt it, so one KID never has two different seq-0
 * documents (which would be equivocation, docs/evidence.md).
 */
export async function registerGatewayIdentity(
  db: Queryable,
  seed: Uint8Array,
  now = new Date(),
): Promise<GatewayIdentity> {
  const signer = nodeSigner(seed);
  const document = signIdentity(
    identityGenesis({
      publicKey: signer.publicKey,
      actor_type: "gateway",
      subject: { organization_id: "installation", id: "gateway", name: "Countersign Gateway" },
      issued_at: timestamp(now),
    }),
    signer,
  );
  await insertGatewayIdentity(db, document);
  const documents = identityLogOf(await storedDocument(db, signer.kid));
  // Carried, and its digest named, in every receipt: its canonical text is taken once.
  documents.forEach(sealStored);
  return { signer, documents };
}
