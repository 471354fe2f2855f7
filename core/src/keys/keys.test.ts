import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bearerKey, formatKey, generateKey, hashSecret, parseKey, secretMatches } from "./index.js";

describe("API key format (SPEC 2.2)", () => {
  it("generates keys that parse back to their parts", () => {
    for (const env of ["live", "test"] as const) {
      const k = generateKey(env);
      expect(k.key).toMatch(/^svc_(live|test)_[a-z0-9]{12}_[A-Za-z0-9_-]{43}$/);
      expect(parseKey(k.key)).toEqual({ environment: env, prefix: k.prefix, secret: k.secret });
      expect(formatKey(k)).toBe(k.key);
    }
  });

  it("parses secrets containing underscores by position", () => {
    const secret = "_".repeat(20) + "a".repeat(23);
    expect(parseKey(`svc_live_abcdefghij12_${secret}`)?.secret).toBe(secret);
  });

  it("refuses malformed keys, including a trailing newline", () => {
    const k = generateKey("live").key;
    for (const bad of [
      `${k}\n`,
      ` ${k}`,
      k.replace("svc_", "sk_"),
      k.replace("_live_", "_prod_"),
      k.slice(0, -1),
      `${k}A`,
      k.replace(/^svc_live_([a-z0-9]{12})/, (_m, p: string) => `svc_live_${p.toUpperCase()}`),
      "",
    ]) {
      expect(parseKey(bad), JSON.stringify(bad)).toBeUndefined();
    }
  });

  it("reads a bearer header exactly", () => {
    expect(bearerKey("Bearer abc")).toBe("abc");
    expect(bearerKey("bearer abc")).toBeUndefined();
    expect(bearerKey("Bearer abc def")).toBeUndefined();
    expect(bearerKey(undefined)).toBeUndefined();
  });
});

describe("keyed secret hash (SPEC 5.1)", () => {
  const hashKey = randomBytes(32);

  it("matches only the right secret under the right installation key", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (a, b) => {
        const stored = hashSecret(hashKey, a);
        expect(secretMatches(hashKey, a, stored)).toBe(true);
        expect(secretMatches(hashKey, b, stored)).toBe(a === b);
        expect(secretMatches(randomBytes(32), a, stored)).toBe(false);
      }),
    );
  });

  it("never matches for an unknown prefix", () => {
    expect(secretMatches(hashKey, "anything", undefined)).toBe(false);
  });
});
