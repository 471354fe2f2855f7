import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { CredentialKeyError, decryptCredential, encryptCredential } from "./credential-box.js";

describe("credential box", () => {
  const key = randomBytes(32);

  it("round-trips, and never stores the plaintext or the same bytes twice", () => {
    const a = encryptCredential(key, "whsec_abc", "webhook_endpoint:1");
    const b = encryptCredential(key, "whsec_abc", "webhook_endpoint:1");
    expect(decryptCredential(key, a, "webhook_endpoint:1")).toBe("whsec_abc");
    expect(a.equals(b)).toBe(false);
    expect(a.includes(Buffer.from("whsec_abc"))).toBe(false);
  });

  it("refuses another key, another context, or changed bytes", () => {
    const stored = encryptCredential(key, "whsec_abc", "webhook_endpoint:1");
    expect(() => decryptCredential(randomBytes(32), stored, "webhook_endpoint:1")).toThrow(
      CredentialKeyError,
    );
    expect(() => decryptCredential(key, stored, "webhook_endpoint:2")).toThrow(CredentialKeyError);
    const flipped = Buffer.from(stored);
    flipped[flipped.length - 1]! ^= 1;
    expect(() => decryptCredential(key, flipped, "webhook_endpoint:1")).toThrow(CredentialKeyError);
    expect(() => decryptCredential(key, stored.subarray(0, 10), "webhook_endpoint:1")).toThrow(
      CredentialKeyError,
    );
  });

  it("wants a 32-byte key", () => {
    expect(() => encryptCredential(randomBytes(16), "x", "c")).toThrow(CredentialKeyError);
  });
});
