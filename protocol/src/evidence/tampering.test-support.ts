import type { Bundle } from "./bundle.js";
import { identityBodySchema, signIdentity, type IdentityDocument } from "./identity.js";
import { signObject } from "./object.js";
import type { EvidenceErrorCode } from "./verify/codes.js";
import { buildScenario, scenarioIdentity, scenarioSigners, at } from "./scenario.test-support.js";
import type { BodyOf, SignedObject } from "./signed-object.js";

/**
 * Altered copies of the sample bundle, one per way evidence can be attacked
 * or go wrong, each with the named error a verifier must report. Used by the
 * tamper tests and written out as test vectors. Not part of the public surface.
 */
export interface Tampering {
  name: string;
  description: string;
  /** The bundle as JSON, ready to serialize. */
  bundle: unknown;
  /** Errors the verification must contain (it may contain more). */
  expect: EvidenceErrorCode[];
  /** Equivocated KIDs the verification must report. */
  equivocated?: string[];
  /** Documents the verifier is told it knew already. */
  knownIdentities?: IdentityDocument[];
}

const copy = (b: Bundle): Bundle => JSON.parse(JSON.stringify(b)) as Bundle;

/** Re-signs the receipt after changing its payload: a Gateway that lies, not a third party. */
function reissued(b: Bundle, change: (p: BodyOf<"RECEIPT">["payload"]) => void): Bundle {
  const k = scenarioSigners();
  const out = copy(b);
  change(out.receipt.body.payload);
  out.receipt = signObject(out.receipt.body, k.gateway);
  return out;
}

export function tamperings(): Tampering[] {
  const k = scenarioSigners();
  const base = buildScenario("approved-execution");
  const list: Tampering[] = [];
  const add = (t: Tampering) => list.push(t);

  {
    const b = copy(base);
    (b.objects[0]!.body.payload as { tool: string }).tool = "refund_paymenu";
    add({
      name: "payload-byte",
      description: "one byte of the TASK payload changed",
      bundle: b,
      expect: ["OBJECT_ID_MISMATCH"],
    });
  }
  {
    const b = copy(base);
    const sig = b.objects[1]!.signature;
    b.objects[1]!.signature = (sig[0] === "A" ? "B" : "A") + sig.slice(1);
    add({
      name: "signature",
      description: "one character of the PROPOSAL signature changed",
      bundle: b,
      expect: ["SIGNATURE_INVALID"],
    });
  }
  {
    const b = copy(base);
    [b.objects[1], b.objects[2]] = [b.objects[2]!, b.objects[1]!];
    add({
      name: "reordered-chain",
      description: "PROPOSAL and APPROVAL swapped in the bundle",
      bundle: b,
      expect: ["CHAIN_ORDER", "RECEIPT_MISMATCH"],
    });
  }
  {
    const b = copy(base);
    b.objects = b.objects.filter((o) => o.body.type !== "DELEGATION");
    add({
      name: "removed-delegation",
      description: "the delegation the steps rely on removed",
      bundle: b,
      expect: ["DELEGATION_MISSING"],
    });
  }
  add({
    name: "expired-delegation",
    description: "the delegation expired between the APPROVAL and the EXECUTION",
    bundle: buildScenario("approved-execution", { delegationExpiresAt: at(61) }),
    expect: ["DELEGATION_EXPIRED"],
  });
  add({
    name: "revoked-delegation",
    description: "the principal revoked the delegation before the EXECUTION",
    bundle: buildScenario("approved-execution", { revokedAt: at(30) }),
    expect: ["DELEGATION_REVOKED"],
  });
  {
    const b = copy(base);
    const other = signIdentity(
      identityBodySchema.parse({
        ...b.identities[0]!.body,
        subject: { ...b.identities[0]!.body.subject, name: "Gateway B" },
      }),
      k.gateway,
    );
    b.identities.push(other);
    add({
      name: "equivocating-identity",
      description: "a second, conflicting seq 0 document of the Gateway identity added",
      bundle: b,
      expect: ["IDENTITY_EQUIVOCATION"],
      equivocated: [k.gateway.kid],
    });
    add({
      name: "equivocation-known-elsewhere",
      description: "the bundle is untouched but the verifier knows a conflicting Gateway document",
      bundle: copy(base),
      expect: ["IDENTITY_EQUIVOCATION"],
      equivocated: [k.gateway.kid],
      knownIdentities: [other],
    });
  }
  {
    const b = copy(base);
    const i = b.identities.findIndex((d) => d.body.actor_type === "person");
    const forged = scenarioIdentity("outsider", k.outsider);
    // The outsider's key under the person's KID: the KID no longer hashes to the key.
    b.identities[i] = signIdentity(
      identityBodySchema.parse({ ...forged.body, kid: b.identities[i]!.body.kid }),
      {
        ...k.outsider,
        kid: b.identities[i]!.body.kid,
      },
    );
    add({
      name: "swapped-identity",
      description: "the approver's identity document replaced by one with another key",
      bundle: b,
      expect: ["IDENTITY_INVALID", "IDENTITY_UNKNOWN"],
    });
  }
  {
    const b = copy(base);
    const i = b.identities.findIndex((d) => d.body.actor_type === "person");
    b.identities[i] = scenarioIdentity("person", k.person, { name: "Ada (renamed)" });
    add({
      name: "swapped-identity-same-key",
      description: "the approver's document replaced by another validly signed one of the same key",
      bundle: b,
      expect: ["IDENTITY_MISMATCH"],
    });
  }
  add({
    name: "summary-mismatch",
    description: "the Gateway re-signed the receipt with a summary naming another approver",
    bundle: reissued(base, (p) => {
      p.summary.approved_by = k.outsider.kid;
    }),
    expect: ["SUMMARY_MISMATCH"],
  });
  add({
    name: "outcome-mismatch",
    description: "the Gateway re-signed the receipt claiming the call failed",
    bundle: reissued(base, (p) => {
      p.outcome = "failed";
    }),
    expect: ["OUTCOME_MISMATCH"],
  });
  {
    const b = copy(base);
    (b.disclosures![0]!.value as { amount: string }).amount = "12000.00";
    add({
      name: "disclosure-mismatch",
      description: "the disclosed arguments changed",
      bundle: b,
      expect: ["DISCLOSURE_MISMATCH"],
    });
  }
  {
    const b = copy(base);
    const approval = b.objects[2] as SignedObject<BodyOf<"APPROVAL">>;
    b.objects[2] = signObject({ ...approval.body, actor: k.gateway.kid }, k.gateway);
    add({
      name: "approval-by-gateway",
      description: "the APPROVAL signed by the Gateway instead of a person",
      bundle: b,
      expect: ["IDENTITY_WRONG_ACTOR_TYPE", "CHAIN_BROKEN"],
    });
  }
  return list;
}
