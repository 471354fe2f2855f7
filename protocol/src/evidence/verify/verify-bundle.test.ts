import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { serializeBundle } from "../bundle.js";
import { nobleVerify } from "../noble.js";
import { signObject } from "../object.js";
import { buildScenario, scenarioNames, scenarioSigners } from "../scenario.test-support.js";
import { tamperings } from "../tampering.test-support.js";
import { checkNames, evidenceErrorCodes } from "./codes.js";
import { verificationResultSchema } from "./result.js";
import { verifyBundle } from "./verify-bundle.js";

const now = new Date("2025-06-01T00:00:00.000Z");
const roundTrip = (b: unknown) => JSON.parse(JSON.stringify(b)) as unknown;

describe("verifyBundle on untouched bundles", () => {
  it.each(scenarioNames)("%s is valid with every check passed (node and noble)", (name) => {
    const file = serializeBundle(buildScenario(name));
    for (const verify of [undefined, nobleVerify]) {
      const result = verifyBundle(JSON.parse(file), { now, ...(verify ? { verify } : {}) });
      expect(result.errors).toEqual([]);
      expect(result.valid).toBe(true);
      expect(result.checks.map((c) => c.name)).toEqual([...checkNames]);
      expect(result.checks.every((c) => c.passed)).toBe(true);
      expect(result.equivocated_identities).toEqual([]);
      expect(result.verified_at).toBe("2025-06-01T00:00:00.000Z");
      expect(verificationResultSchema.parse(result)).toEqual(result);
    }
  });

  it("warns, without failing, when no trust is pinned; pinning the right KIDs removes the warning", () => {
    const k = scenarioSigners();
    const bundle = buildScenario("approved-execution");
    expect(verifyBundle(bundle).warnings.map((w) => w.code)).toEqual(["TRUST_NOT_PINNED"]);
    const pinned = verifyBundle(bundle, {
      trust: { issuers: [k.gateway.kid], principals: [k.principal.kid] },
    });
    expect(pinned.valid).toBe(true);
    expect(pinned.warnings).toEqual([]);
  });

  it("refuses a bundle whose issuer or principal is not the pinned one", () => {
    const k = scenarioSigners();
    const bundle = buildScenario("approved-execution");
    const issuer = verifyBundle(bundle, { trust: { issuers: [k.outsider.kid] } });
    expect(issuer.valid).toBe(false);
    expect(issuer.errors.map((e) => e.code)).toContain("ISSUER_UNTRUSTED");
    const principal = verifyBundle(bundle, { trust: { principals: [k.outsider.kid] } });
    expect(principal.errors.map((e) => e.code)).toContain("ISSUER_UNTRUSTED");
  });

  it("notes trusted attestations and warns on an untrusted attester without failing", () => {
    const k = scenarioSigners();
    const bundle = buildScenario("approved-execution");
    expect(
      verifyBundle(bundle).notes.some((n) => n.startsWith('trusted attestation "result-delivered"')),
    ).toBe(true);
    // Same bundle, receipt re-signed without naming the attester as trusted.
    const copy = JSON.parse(serializeBundle(bundle)) as typeof bundle;
    copy.receipt.body.payload.trusted_attesters = [];
    copy.receipt = signObject(copy.receipt.body, k.gateway);
    const result = verifyBundle(copy);
    expect(result.valid).toBe(true);
    expect(result.warnings.map((w) => w.code)).toContain("ATTESTER_UNTRUSTED");
    expect(
      verifyBundle(copy, { trust: { attesters: [k.mcp_server.kid] } }).warnings.map((w) => w.code),
    ).not.toContain("ATTESTER_UNTRUSTED");
  });
});

describe("verifyBundle on tampered bundles", () => {
  it.each(tamperings().map((t) => [t.name, t] as const))("%s is invalid with its named error", (_, t) => {
    for (const verify of [undefined, nobleVerify]) {
      const result = verifyBundle(roundTrip(t.bundle), {
        now,
        ...(t.knownIdentities ? { knownIdentities: t.knownIdentities } : {}),
        ...(verify ? { verify } : {}),
      });
      expect(result.valid).toBe(false);
      const codes = result.errors.map((e) => e.code);
      for (const code of t.expect) expect(codes).toContain(code);
      for (const code of codes) expect(Object.keys(evidenceErrorCodes)).toContain(code);
      expect(result.equivocated_identities).toEqual(t.equivocated ?? []);
      expect(result.checks.some((c) => !c.passed)).toBe(true);
    }
  });

  it("covers every tampering the issue names", () => {
    const names = tamperings().map((t) => t.name);
    for (const n of [
      "payload-byte",
      "signature",
      "reordered-chain",
      "removed-delegation",
      "expired-delegation",
      "revoked-delegation",
      "equivocating-identity",
      "swapped-identity",
    ]) {
      expect(names).toContain(n);
    }
  });

  it("notes, but accepts, a revocation that came after every step relying on the delegation", () => {
    const result = verifyBundle(
      buildScenario("approved-execution", { revokedAt: "2025-01-01T00:05:00.000Z" }),
    );
    expect(result.valid).toBe(true);
    expect(result.notes.some((n) => n.includes("after the steps that relied on it"))).toBe(true);
  });

  it("flips any single character of the file into an invalid or unreadable bundle", () => {
    const file = serializeBundle(buildScenario("rejected"));
    fc.assert(
      fc.property(
        fc.nat({ max: file.length - 1 }),
        fc.constantFrom("0", "1", "a", "f", "Z", "_"),
        (i, ch) => {
          if (file[i] === ch) return;
          const altered = file.slice(0, i) + ch + file.slice(i + 1);
          let parsed: unknown;
          try {
            parsed = JSON.parse(altered);
          } catch {
            return; // no longer JSON: the CLI reports it as unreadable
          }
          expect(verifyBundle(parsed).valid).toBe(false);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("verifyBundle on things that are not bundles", () => {
  it.each([
    ["null", null],
    ["an array", []],
    ["another version", { service_bundle: "0.2", receipt: {}, objects: [], identities: [] }],
    ["a bundle without receipt", { service_bundle: "0.1", objects: [], identities: [] }],
  ])("reports %s as BUNDLE_MALFORMED or OBJECT_MALFORMED", (_, input) => {
    const result = verifyBundle(input);
    expect(result.valid).toBe(false);
    expect(
      result.errors.map((e) => e.code).some((c) => c === "BUNDLE_MALFORMED" || c === "OBJECT_MALFORMED"),
    ).toBe(true);
  });

  it("names a malformed object instead of giving up on the file", () => {
    const bundle = roundTrip(buildScenario("cancelled")) as {
      objects: { body: { payload: Record<string, unknown> } }[];
    };
    bundle.objects[0]!.body.payload.extra = 1;
    const result = verifyBundle(bundle);
    expect(result.errors.map((e) => e.code)).toContain("OBJECT_MALFORMED");
  });

  it("never throws, whatever it is given", () => {
    fc.assert(
      fc.property(fc.anything(), (input) => {
        expect(verifyBundle(input).valid).toBe(false);
      }),
    );
  });
});
