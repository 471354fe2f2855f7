import { identityDigest, verifyIdentityDocument, type IdentityDocument } from "../identity.js";
import { findEquivocations } from "../equivocation.js";
import { identityStates, type IdentityState } from "../identity-log.js";
import type { Ed25519Verify } from "../ed25519.js";
import type { Kid } from "../kid.js";
import type { BodyOf, SignedObject } from "../signed-object.js";
import type { Findings } from "./result.js";

/**
 * Check `identities`: each document's KID and self-signature, complete logs,
 * equivocation (also against documents the verifier already knew), one
 * organization for all, and the receipt's identity manifest.
 */
export function checkIdentities(
  findings: Findings,
  documents: IdentityDocument[],
  known: readonly unknown[],
  receipt: SignedObject<BodyOf<"RECEIPT">>,
  verify: Ed25519Verify,
): Map<Kid, IdentityState> {
  findings.run("identities");
  const valid: IdentityDocument[] = [];
  for (const doc of documents) {
    const checked = verifyIdentityDocument(doc, verify);
    if (checked.ok) valid.push(doc);
    else findings.error("identities", checked.code, checked.message, { kid: doc.body.kid });
  }
  const knownValid = known.flatMap((d) => {
    const checked = verifyIdentityDocument(d, verify);
    return checked.ok ? [checked.document] : [];
  });
  if (knownValid.length < known.length)
    findings.note("some known identity documents were not valid and were ignored");

  for (const e of findEquivocations([...valid, ...knownValid])) {
    findings.equivocated.add(e.kid);
    findings.error(
      "identities",
      "IDENTITY_EQUIVOCATION",
      `conflicting documents at seq ${e.seq} (${e.reason})`,
      { kid: e.kid },
    );
  }

  const states = identityStates(valid);
  for (const state of states.values()) {
    if (!state.complete)
      findings.error("identities", "IDENTITY_INVALID", "identity log is incomplete (a seq is missing)", {
        kid: state.kid,
      });
    // Knowing an equivocation from elsewhere invalidates the identity here too.
    if (findings.equivocated.has(state.kid)) state.equivocated = true;
  }

  // A Gateway identity is installation-wide and a personal identity belongs to
  // a person, who approves in every organization they are a member of
  // (docs/evidence.md, section 3): only the other signers must agree.
  const organizations = new Set(
    [...states.values()]
      .filter((s) => s.actorType !== "gateway" && s.actorType !== "person")
      .map((s) => s.subject.organization_id),
  );
  if (organizations.size > 1) {
    findings.error("identities", "IDENTITY_MISMATCH", "identities belong to more than one organization");
  }

  // The receipt pins every document by digest: swapping or dropping one breaks the pin.
  const manifest = receipt.body.payload.identities.map((i) => `${i.kid}/${i.seq}/${i.digest}`);
  const present = documents.map((d) => `${d.body.kid}/${d.body.seq}/${identityDigest(d)}`);
  const missing = manifest.filter((m) => !present.includes(m));
  const extra = present.filter((p) => !manifest.includes(p));
  for (const m of missing) {
    findings.error(
      "identities",
      "IDENTITY_MISMATCH",
      `the receipt pins an identity document the bundle lacks (${m.split("/")[1]})`,
      {
        kid: m.split("/")[0]!,
      },
    );
  }
  for (const p of extra) {
    findings.error(
      "identities",
      "IDENTITY_MISMATCH",
      "the bundle holds an identity document the receipt does not pin",
      {
        kid: p.split("/")[0]!,
      },
    );
  }
  return states;
}
