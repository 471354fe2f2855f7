import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { kidOf } from "./kid.js";
import { nobleSigner, nobleVerify } from "./noble.js";
import { nodeSigner, nodeVerify, privateKeyFromSeed, rawPublicKey } from "./sign.js";

const hex = (h: string) => new Uint8Array(Buffer.from(h, "hex"));
const toHex = (b: Uint8Array) => Buffer.from(b).toString("hex");

// RFC 8032 section 7.1, tests 1 and 2.
const rfc8032 = [
  {
    seed: "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
    publicKey: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
    message: "",
    signature:
      "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
  },
  {
    seed: "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
    publicKey: "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
    message: "72",
    signature:
      "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
  },
];

describe("Ed25519 through node:crypto and @noble/ed25519", () => {
  it.each(rfc8032)("both reproduce the RFC 8032 vector for seed $seed", (v) => {
    for (const signer of [nodeSigner(hex(v.seed)), nobleSigner(hex(v.seed))]) {
      expect(toHex(signer.publicKey)).toBe(v.publicKey);
      expect(toHex(signer.sign(hex(v.message)))).toBe(v.signature);
    }
    expect(nodeVerify(hex(v.publicKey), hex(v.message), hex(v.signature))).toBe(true);
    expect(nobleVerify(hex(v.publicKey), hex(v.message), hex(v.signature))).toBe(true);
  });

  it("signs byte-identically and each verifies the other's signatures", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ maxLength: 300 }),
        (seed, message) => {
          const node = nodeSigner(seed);
          const noble = nobleSigner(seed);
          expect(toHex(node.publicKey)).toBe(toHex(noble.publicKey));
          expect(node.kid).toBe(noble.kid);
          const byNode = node.sign(message);
          const byNoble = noble.sign(message);
          expect(toHex(byNode)).toBe(toHex(byNoble));
          expect(nobleVerify(node.publicKey, message, byNode)).toBe(true);
          expect(nodeVerify(noble.publicKey, message, byNoble)).toBe(true);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("both refuse an altered message, an altered signature and a foreign key", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.nat(),
        (seed, message, n) => {
          const signer = nodeSigner(seed);
          const sig = signer.sign(message);
          const badSig = Uint8Array.from(sig);
          badSig[n % 64]! ^= 1 << (n % 8);
          const badMsg = Uint8Array.from(message);
          badMsg[n % message.length]! ^= 1;
          const other = nodeSigner(Uint8Array.from(seed, (b) => b ^ 0xff)).publicKey;
          for (const verify of [nodeVerify, nobleVerify]) {
            expect(verify(signer.publicKey, message, badSig)).toBe(false);
            expect(verify(signer.publicKey, badMsg, sig)).toBe(false);
            expect(verify(other, message, sig)).toBe(false);
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it("both refuse a signature whose S is not reduced (S + L), so neither is more lenient", () => {
    const v = rfc8032[0]!;
    const sig = hex(v.signature);
    const l = (1n << 252n) + 27742317777372353535851937790883648493n;
    let s = 0n;
    for (let i = 31; i >= 0; i--) s = (s << 8n) | BigInt(sig[32 + i]!);
    let sl = s + l;
    const malleated = Uint8Array.from(sig);
    for (let i = 0; i < 32; i++) {
      malleated[32 + i] = Number(sl & 0xffn);
      sl >>= 8n;
    }
    expect(nodeVerify(hex(v.publicKey), hex(v.message), malleated)).toBe(false);
    expect(nobleVerify(hex(v.publicKey), hex(v.message), malleated)).toBe(false);
  });

  it("both answer false, never throw, for keys and signatures of the wrong size or not on the curve", () => {
    for (const verify of [nodeVerify, nobleVerify]) {
      expect(verify(new Uint8Array(31), new Uint8Array(), new Uint8Array(64))).toBe(false);
      expect(verify(new Uint8Array(32), new Uint8Array(), new Uint8Array(63))).toBe(false);
      expect(verify(new Uint8Array(32).fill(0xff), new Uint8Array(), new Uint8Array(64))).toBe(false);
    }
  });

  it("derives the KID from the raw public key, the same from a KeyObject", () => {
    const v = rfc8032[0]!;
    expect(kidOf(hex(v.publicKey))).toBe(
      "kid_21fe31dfa154a261626bf854046fd2271b7bed4b6abe45aa58877ef47f9721b9",
    );
    expect(toHex(rawPublicKey(privateKeyFromSeed(hex(v.seed))))).toBe(v.publicKey);
    expect(() => kidOf(new Uint8Array(31))).toThrow(RangeError);
  });
});
