import { describe, expect, it } from "vitest";
import { canonicalJson, sha256Hex } from "../canonical/index.js";
import { serializeBundle } from "./bundle.js";
import { identitySuccessor, signIdentity } from "./identity.js";
import { nobleSigner } from "./noble.js";
import { assembleSignedObject, followingOwnStep, followingStep, objectBody, signObject } from "./object.js";
import { signingInput } from "./object-id.js";
import { toBase64url } from "./encoding.js";
import { timestampSchema } from "./fields.js";
import {
  at,
  buildScenario,
  scenarioIdentity,
  scenarioNames,
  scenarioSeeds,
  scenarioSigners,
} from "./scenario.test-support.js";
import { objectBodySchema, type BodyOf, type SignedObject } from "./signed-object.js";
import { verifySignedObject } from "./verify-object.js";

const k = scenarioSigners();
const bundle = buildScenario("approved-execution");
const proposal = bundle.objects[1] as SignedObject<BodyOf<"PROPOSAL">>;
const approvalBody = followingStep(proposal, {
  type: "APPROVAL",
  actor: k.person.kid,
  on_behalf_of: k.principal.kid,
  delegations: [],
  issued_at: at(70),
  payload: { approval_request_id: "apr_42", call: proposal.body.payload.call, expires_at: at(3600) },
});
const objectBodySchemaParse = (b: unknown) => objectBodySchema.parse(b);
const identities = [scenarioIdentity("person", k.person), scenarioIdentity("gateway", k.gateway)];

describe("signed objects", () => {
  it("have id ko_ + SHA-256 of the canonical body, which is also the signature input", () => {
    const signed = signObject(approvalBody, k.person);
    const text = canonicalJson(approvalBody);
    expect(new TextDecoder().decode(signingInput(approvalBody))).toBe(text);
    expect(signed.id).toBe(`ko_${sha256Hex(text)}`);
    expect(signed.body.thread).toBe(bundle.objects[0]!.id);
    expect(signed.body.parent).toBe(proposal.id);
  });

  it("serialize, sealed, exactly as a fresh copy walked member by member", () => {
    const signed = signObject(approvalBody, k.person);
    const copy = JSON.parse(JSON.stringify(signed)) as SignedObject;
    expect(canonicalJson(signed)).toBe(canonicalJson(copy));
    expect(canonicalJson({ z: [signed], a: signed.body })).toBe(canonicalJson({ z: [copy], a: copy.body }));
    for (const name of scenarioNames) {
      const b = buildScenario(name);
      expect(serializeBundle(b)).toBe(canonicalJson(JSON.parse(JSON.stringify(b))));
    }
  });

  it("are byte-identical whether node:crypto or noble signed them", () => {
    const byNoble = signObject(approvalBody, nobleSigner(scenarioSeeds.person));
    expect(byNoble).toEqual(signObject(approvalBody, k.person));
    for (const name of scenarioNames) {
      expect(serializeBundle(buildScenario(name, { signers: scenarioSigners("noble") }))).toBe(
        serializeBundle(buildScenario(name)),
      );
    }
  });

  it("refuse bodies that break their type's schema", () => {
    expect(() => objectBody({ ...approvalBody, delegations: [bundle.objects[0]!.id] } as never)).toThrow();
    expect(() =>
      objectBody({ ...approvalBody, payload: { ...approvalBody.payload, extra: 1 } } as never),
    ).toThrow();
    expect(() => objectBody({ ...approvalBody, issued_at: "2025-01-01T00:00:00Z" } as never)).toThrow();
    const task = bundle.objects[0] as SignedObject<BodyOf<"TASK">>;
    expect(() => objectBody({ ...task.body, delegations: [] } as never)).toThrow();
  });

  it("built by the Gateway without the schema check (followingOwnStep), are the same bytes", () => {
    const { protocol: _, thread: __, parent: ___, ...input } = approvalBody;
    const own = followingOwnStep(proposal, input);
    expect(canonicalJson(own)).toBe(canonicalJson(approvalBody));
    expect(objectBodySchemaParse(own)).toEqual(own);
  });

  it("are signed only by their actor", () => {
    expect(() => signObject(approvalBody, k.gateway)).toThrow();
  });
});

describe("verifySignedObject (the Cloud API checking what a browser signed)", () => {
  it("accepts an approval signed elsewhere over signingInput and assembled", () => {
    // The browser receives the body, signs its canonical bytes with the person's key.
    const signature = toBase64url(nobleSigner(scenarioSeeds.person).sign(signingInput(approvalBody)));
    const submitted = JSON.parse(JSON.stringify(assembleSignedObject(approvalBody, signature))) as unknown;
    const result = verifySignedObject(submitted, identities, { expectedActor: k.person.kid });
    expect(result.ok).toBe(true);
  });

  it("names what is wrong", () => {
    const signed = signObject(approvalBody, k.person);
    expect(
      verifySignedObject(
        { ...signed, signature: signObject(approvalBody, k.person).signature.replace(/^./, "A") },
        identities,
      ),
    ).toMatchObject({
      ok: false,
    });
    expect(verifySignedObject({ ...signed, id: bundle.objects[0]!.id }, identities)).toMatchObject({
      code: "OBJECT_ID_MISMATCH",
    });
    expect(verifySignedObject(signed, [identities[1]!])).toMatchObject({ code: "IDENTITY_UNKNOWN" });
    expect(verifySignedObject(signed, identities, { expectedActor: k.outsider.kid })).toMatchObject({
      code: "IDENTITY_UNKNOWN",
    });
    expect(verifySignedObject({ id: signed.id }, identities)).toMatchObject({ code: "OBJECT_MALFORMED" });
    const asGateway = signObject({ ...approvalBody, actor: k.gateway.kid }, k.gateway);
    expect(verifySignedObject(asGateway, identities)).toMatchObject({ code: "IDENTITY_WRONG_ACTOR_TYPE" });
  });

  it("refuses objects signed at or after the identity was revoked, and any by an equivocated identity", () => {
    const signed = signObject(approvalBody, k.person);
    const revoked = signIdentity(
      identitySuccessor(identities[0]!, { status: "revoked", issued_at: at(70) }),
      k.person,
    );
    expect(verifySignedObject(signed, [identities[0]!, revoked])).toMatchObject({ code: "IDENTITY_REVOKED" });
    const later = signIdentity(
      identitySuccessor(identities[0]!, { status: "revoked", issued_at: at(71) }),
      k.person,
    );
    expect(verifySignedObject(signed, [identities[0]!, later]).ok).toBe(true);
    const fork = signIdentity({ ...identities[0]!.body, issued_at: at(-5) }, k.person);
    expect(verifySignedObject(signed, [identities[0]!, fork])).toMatchObject({
      code: "IDENTITY_EQUIVOCATION",
    });
  });
});

describe("timestamps", () => {
  it("accept only valid UTC instants with milliseconds", () => {
    expect(timestampSchema.safeParse("2025-01-01T00:00:00.000Z").success).toBe(true);
    for (const bad of [
      "2025-13-01T00:00:00.000Z",
      "2025-02-30T00:00:00.000Z",
      "2025-01-01T00:00:00Z",
      "2025-01-01T00:00:00.000+01:00",
    ]) {
      expect(timestampSchema.safeParse(bad).success).toBe(false);
    }
  });
});
