import { describe, expect, it } from "vitest";
import { equivocatedKids, findEquivocations } from "./equivocation.js";
import {
  identityDigest,
  identityGenesis,
  identitySuccessor,
  signIdentity,
  verifyIdentityDocument,
} from "./identity.js";
import { acceptIdentityDocument, identityStates, mayIdentitySign } from "./identity-log.js";
import { nobleVerify } from "./noble.js";
import { at, scenarioIdentity, scenarioSigners } from "./scenario.test-support.js";

const k = scenarioSigners();
const genesis = scenarioIdentity("principal", k.principal);

describe("identity documents", () => {
  it("are self-signed and verify with either implementation", () => {
    expect(genesis.body.kid).toBe(k.principal.kid);
    expect(verifyIdentityDocument(genesis).ok).toBe(true);
    expect(verifyIdentityDocument(genesis, nobleVerify).ok).toBe(true);
  });

  it("refuse a changed body, a KID that is not the key's hash, and a malformed document", () => {
    const changed = {
      ...genesis,
      body: { ...genesis.body, subject: { ...genesis.body.subject, name: "Other" } },
    };
    expect(verifyIdentityDocument(changed)).toMatchObject({ ok: false, code: "IDENTITY_INVALID" });
    const otherKid = { ...genesis, body: { ...genesis.body, kid: k.person.kid } };
    expect(verifyIdentityDocument(otherKid)).toMatchObject({ ok: false, code: "IDENTITY_INVALID" });
    expect(verifyIdentityDocument({ body: {} })).toMatchObject({ ok: false, code: "IDENTITY_INVALID" });
  });

  it("cannot be signed by another key", () => {
    expect(() => signIdentity(genesis.body, k.person)).toThrow();
  });

  it("chain a replacement: the old identity may sign until the replacement and not after", () => {
    const replaced = signIdentity(
      identitySuccessor(genesis, { status: "replaced", replaced_by: k.outsider.kid, issued_at: at(100) }),
      k.principal,
    );
    expect(replaced.body.prev).toBe(identityDigest(genesis));
    const successor = signIdentity(
      identityGenesis({
        publicKey: k.outsider.publicKey,
        actor_type: "principal",
        subject: genesis.body.subject,
        issued_at: at(100),
        replaces: k.principal.kid,
      }),
      k.outsider,
    );
    const states = identityStates([genesis, replaced, successor]);
    const old = states.get(k.principal.kid)!;
    expect(old).toMatchObject({
      status: "replaced",
      finalAt: at(100),
      replacedBy: k.outsider.kid,
      complete: true,
      equivocated: false,
    });
    expect(mayIdentitySign(old, at(99))).toBe(true);
    expect(mayIdentitySign(old, at(100))).toBe(false);
    expect(mayIdentitySign(states.get(k.outsider.kid)!, at(100))).toBe(true);
  });

  it("report an incomplete log", () => {
    const next = signIdentity(
      identitySuccessor(genesis, { status: "revoked", issued_at: at(5) }),
      k.principal,
    );
    expect(identityStates([next]).get(k.principal.kid)!.complete).toBe(false);
  });
});

describe("equivocation", () => {
  const fork = signIdentity(
    { ...genesis.body, subject: { ...genesis.body.subject, name: "Fork" } },
    k.principal,
  );
  const revoked = signIdentity(
    identitySuccessor(genesis, { status: "revoked", issued_at: at(10) }),
    k.principal,
  );

  it("is found for two documents with one seq", () => {
    expect(findEquivocations([genesis, fork])).toEqual([
      {
        kid: k.principal.kid,
        seq: 0,
        reason: "fork",
        digests: [identityDigest(genesis), identityDigest(fork)].sort(),
      },
    ]);
    expect(equivocatedKids([genesis, fork, scenarioIdentity("gateway", k.gateway)])).toEqual([
      k.principal.kid,
    ]);
  });

  it("is found for a broken link and for a document after a final one", () => {
    const relinked = signIdentity(
      identitySuccessor(fork, { status: "active", issued_at: at(5) }),
      k.principal,
    );
    expect(findEquivocations([genesis, relinked])[0]?.reason).toBe("broken_link");
    const unrevoked = signIdentity(
      identitySuccessor(revoked, { status: "active", issued_at: at(20) }),
      k.principal,
    );
    expect(findEquivocations([genesis, revoked, unrevoked])[0]?.reason).toBe("after_final");
  });

  it("is not found for the same document twice or a clean log", () => {
    expect(findEquivocations([genesis, genesis, revoked])).toEqual([]);
  });

  it("makes the identity permanently invalid: it may not sign at any time", () => {
    const state = identityStates([genesis, fork]).get(k.principal.kid)!;
    expect(state.equivocated).toBe(true);
    expect(mayIdentitySign(state, at(-20 * 86400))).toBe(false);
  });
});

describe("acceptIdentityDocument (the Cloud API receiving a document)", () => {
  it("accepts the next document, recognizes a duplicate, refuses a gap", () => {
    expect(acceptIdentityDocument([], genesis).outcome).toBe("accepted");
    expect(acceptIdentityDocument([genesis], genesis).outcome).toBe("duplicate");
    const revoked = signIdentity(
      identitySuccessor(genesis, { status: "revoked", issued_at: at(10) }),
      k.principal,
    );
    expect(acceptIdentityDocument([genesis], revoked)).toMatchObject({
      outcome: "accepted",
      state: { status: "revoked" },
    });
    expect(acceptIdentityDocument([], revoked)).toMatchObject({
      outcome: "invalid",
      code: "IDENTITY_INVALID",
    });
  });

  it("answers IDENTITY_EQUIVOCATION for a conflicting document", () => {
    const fork = signIdentity({ ...genesis.body, issued_at: at(-1) }, k.principal);
    expect(acceptIdentityDocument([genesis], fork)).toMatchObject({
      outcome: "equivocation",
      code: "IDENTITY_EQUIVOCATION",
    });
  });

  it("answers IDENTITY_INVALID for a forged document", () => {
    const forged = { ...genesis, signature: scenarioIdentity("person", k.person).signature };
    expect(acceptIdentityDocument([], forged)).toMatchObject({
      outcome: "invalid",
      code: "IDENTITY_INVALID",
    });
  });
});
