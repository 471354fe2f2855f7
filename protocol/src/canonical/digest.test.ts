import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { digestOf, isDigest, sha256Digest } from "./digest.js";
import { canonicalJson, sealStored, sealedText } from "./json.js";

describe("digests", () => {
  it("writes sha256:<64 hex> of the canonical text", () => {
    // SHA-256 of the 2 bytes "{}" — a fixed value a second implementation can check.
    expect(digestOf({})).toBe("sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");
    expect(sha256Digest("")).toBe("sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("is the same for any member order and spelling of the same JSON", () => {
    expect(digestOf(JSON.parse('{"b": 1.0, "a": [1e0]}'))).toBe(digestOf({ a: [1], b: 1 }));
  });

  it("follows an unsealed value that changes, and takes a stored document's once sealed", () => {
    const body: { kid: string; seq: number } = { kid: "k1", seq: 0 };
    const before = digestOf(body);
    body.seq = 1;
    expect(digestOf(body)).not.toBe(before);
    expect(digestOf(body)).toBe(sha256Digest('{"kid":"k1","seq":1}'));
    const document = { signature: "s", body };
    sealStored(document);
    expect(sealedText(body)).toBe('{"kid":"k1","seq":1}');
    expect(sealedText(document)).toBe(canonicalJson({ signature: "s", body: { seq: 1, kid: "k1" } }));
    expect(digestOf(body)).toBe(sha256Digest('{"kid":"k1","seq":1}'));
  });

  it("recognizes only lowercase sha256 digests", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(isDigest(digestOf(v))).toBe(true);
      }),
    );
    expect(isDigest("sha256:ABC")).toBe(false);
    expect(isDigest(`sha256:${"A".repeat(64)}`)).toBe(false);
  });
});
