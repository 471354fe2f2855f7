import { describe, expect, it } from "vitest";
import { identityDigest, type IdentityDocument } from "../identity.js";
import { signObject } from "../object.js";
import { buildScenario, scenarioIdentity, scenarioSigners } from "../scenario.test-support.js";
import type { Bundle } from "../bundle.js";
import { verifyBundle } from "./verify-bundle.js";

/** The bundle with one signer's document replaced and the receipt's manifest re-signed to match, as an honest Gateway would issue it. */
function withIdentity(role: "person" | "principal", doc: IdentityDocument): Bundle {
  const k = scenarioSigners();
  const b = JSON.parse(JSON.stringify(buildScenario("approved-execution"))) as Bundle;
  const i = b.identities.findIndex((d) => d.body.kid === k[role].kid);
  b.identities[i] = doc;
  const payload = b.receipt.body.payload;
  payload.identities = payload.identities.map((m) =>
    m.kid === doc.body.kid ? { ...m, digest: identityDigest(doc) } : m,
  );
  b.receipt = signObject(b.receipt.body, k.gateway);
  return b;
}

// A person binds personal identities once and approves in every organization
// they belong to (SPEC 2.1; docs/configuration-api.md "Personal identities"),
// so their subject cannot name one organization.
describe("organization of the signers", () => {
  it("accepts a person whose identity names no organization of the bundle (personal identities are per person)", () => {
    const k = scenarioSigners();
    const result = verifyBundle(
      withIdentity("person", scenarioIdentity("person", k.person, { organization_id: "personal" })),
    );
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("still refuses a principal of another organization (IDENTITY_MISMATCH)", () => {
    const k = scenarioSigners();
    const result = verifyBundle(
      withIdentity("principal", scenarioIdentity("principal", k.principal, { organization_id: "org_other" })),
    );
    expect(result.errors.map((e) => e.code)).toContain("IDENTITY_MISMATCH");
    expect(result.valid).toBe(false);
  });
});
