import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createContext, runInContext } from "node:vm";
import { webcrypto } from "node:crypto";
import { build } from "esbuild";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import * as evidence from "../evidence/index.js";
import { compilePolicy, decide, parsePolicy, policyDigest } from "../policy/index.js";
import { portableFromBase64url, portableToBase64url } from "../evidence/encoding.js";
import { pureSha256Hex, sha256Hex, utf8Length } from "./runtime.js";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const vectors = here("../../../test/vectors/evidence/");
const verifiedAt = new Date("2025-06-01T00:00:00.000Z");
const json = (path: string) => JSON.parse(readFileSync(join(vectors, path), "utf8")) as unknown;

type Protocol = typeof import("../index.js");

/**
 * The protocol as a browser gets it: bundled by esbuild for the browser
 * platform (which refuses any Node built-in it would have to include) and run
 * in a fresh realm that has only what a browser page has in common with Node
 * here: no process, no Buffer, no require.
 */
async function browserProtocol(): Promise<{ protocol: Protocol; realm: Record<string, unknown> }> {
  const out = await build({
    entryPoints: [here("../index.ts")],
    bundle: true,
    platform: "browser",
    format: "iife",
    globalName: "countersignProtocol",
    write: false,
    logLevel: "silent",
  });
  // Web platform globals every browser has (Node has them too, so they are lent from here).
  const realm: Record<string, unknown> = {
    TextEncoder,
    TextDecoder,
    btoa,
    atob,
    crypto: webcrypto,
    structuredClone,
    URL,
    URLSearchParams,
    queueMicrotask,
  };
  const context = createContext(realm);
  runInContext(out.outputFiles[0]!.text, context);
  return { protocol: realm.countersignProtocol as Protocol, realm };
}

/**
 * A value as the page would hold it: made by the realm's own JSON.parse, so
 * its objects have that realm's Object.prototype (the canonical JSON of either
 * realm accepts only plain objects of its own).
 */
function inRealm<T>(realm: Record<string, unknown>, value: T): T {
  const parse = runInContext("(text) => JSON.parse(text)", createContext(realm)) as (text: string) => T;
  return parse(JSON.stringify(value));
}

describe("the protocol in a browser", () => {
  let protocol: Protocol;
  let realm: Record<string, unknown>;
  beforeAll(async () => {
    ({ protocol, realm } = await browserProtocol());
  });

  it("runs without Node: no process, Buffer or require in its realm", () => {
    expect(runInContext("[typeof process, typeof Buffer, typeof require]", createContext(realm))).toEqual([
      "undefined",
      "undefined",
      "undefined",
    ]);
    expect(typeof protocol.evidence.verifyBundle).toBe("function");
  });

  it("gives the canonical JSON and digests of the test vectors", () => {
    for (const v of json("canonical.json") as { input: string; canonical: string; digest: string }[]) {
      expect(protocol.canonical.canonicalJson(inRealm(realm, JSON.parse(v.input)))).toBe(v.canonical);
      expect(protocol.canonical.digestOf(inRealm(realm, JSON.parse(v.input)))).toBe(v.digest);
    }
  });

  it("signs the vector object with the same bytes as Node", () => {
    const signing = json("signing.json") as {
      object: { body: evidence.ObjectBody };
      id: string;
      signature: string;
    };
    const keys = json("keys.json") as Record<string, { seed_hex: string; kid: string }>;
    const seed = Uint8Array.from(Buffer.from(keys.gateway!.seed_hex, "hex"));
    const signer = protocol.evidence.signerFromSeed(seed);
    expect(signer.kid).toBe(keys.gateway!.kid);
    const signed = protocol.evidence.signObject(inRealm(realm, signing.object.body), signer);
    expect(signed.id).toBe(signing.id);
    expect(signed.signature).toBe(signing.signature);
    expect(signed).toEqual(evidence.signObject(signing.object.body, evidence.nodeSigner(seed)));
  });

  it("verifies every vector bundle, valid or tampered, exactly as Node does", () => {
    for (const name of readdirSync(join(vectors, "bundles"))) {
      const bundle = json(`bundles/${name}`);
      const stored = json(`results/${name.replace(".svcbundle", ".json")}`) as { valid: boolean };
      expect(stored.valid).toBe(true);
      expect(
        JSON.parse(
          JSON.stringify(protocol.evidence.verifyBundle(inRealm(realm, bundle), { now: verifiedAt })),
        ),
      ).toEqual(stored);
    }
    const tampered = readdirSync(join(vectors, "tampered")).filter((f) => f.endsWith(".svcbundle"));
    expect(tampered.length).toBeGreaterThan(5);
    for (const name of tampered) {
      const bundle = json(`tampered/${name}`);
      const knownFile = name.replace(".svcbundle", ".known.json");
      const known = {
        ...(readdirSync(join(vectors, "tampered")).includes(knownFile)
          ? { knownIdentities: json(`tampered/${knownFile}`) as unknown[] }
          : {}),
      };
      const options = { ...inRealm(realm, known), now: verifiedAt };
      const inBrowser = JSON.parse(
        JSON.stringify(protocol.evidence.verifyBundle(inRealm(realm, bundle), options)),
      );
      expect(inBrowser.valid, name).toBe(false);
      expect(inBrowser, name).toEqual(evidence.verifyBundle(bundle, { ...known, now: verifiedAt }));
    }
  });

  it("evaluates a policy and explains the decision as the server does", () => {
    const document = {
      default_effect: "deny",
      rules: [
        { id: "pay", effect: "allow", tools: ["pay.*"] },
        {
          id: "big",
          effect: "require_approval",
          conditions: [{ field: "amount", op: "gt", threshold: "100", currency: "USD" }],
          approvers: { roles: ["admin"] },
        },
      ],
    };
    const inBrowser = protocol.policy.compilePolicy(protocol.policy.parsePolicy(inRealm(realm, document)));
    const inNode = compilePolicy(parsePolicy(document));
    for (const input of [
      { tool: "pay.send", action: "payments.send", amount: "5000", currency: "USD" },
      { tool: "pay.send", action: "payments.send", amount: "50", currency: "USD" },
      { tool: "mail.send", action: "mail.send" },
    ]) {
      expect(JSON.parse(JSON.stringify(protocol.policy.decide(inBrowser, inRealm(realm, input))))).toEqual(
        decide(inNode, input),
      );
    }
    expect(protocol.policy.policyDigest(inRealm(realm, document))).toBe(policyDigest(document));
  });
});

describe("portable primitives agree with Node's", () => {
  it("SHA-256", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.string({ unit: "binary", maxLength: 100 }),
        (bytes, text) => {
          expect(pureSha256Hex(bytes)).toBe(sha256Hex(bytes));
          expect(pureSha256Hex(text)).toBe(sha256Hex(text));
        },
      ),
    );
  });

  it("UTF-8 length, lone surrogates included", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 100 }),
        fc.string({ unit: "grapheme", maxLength: 50 }),
        (a, b) => {
          expect(utf8Length(a)).toBe(Buffer.byteLength(a, "utf8"));
          expect(utf8Length(b)).toBe(Buffer.byteLength(b, "utf8"));
        },
      ),
    );
    expect(utf8Length("\ud800x")).toBe(4);
  });

  it("base64url both ways", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        const text = portableToBase64url(bytes);
        expect(text).toBe(Buffer.from(bytes).toString("base64url"));
        expect(portableFromBase64url(text)).toEqual(bytes);
      }),
    );
  });
});
