import { describe, expect, it } from "vitest";
import { policyDigest } from "./digest.js";

describe("policy digest", () => {
  const doc = { default_effect: "deny", rules: [{ id: "r", effect: "allow", tools: ["a.*"] }] };

  it("is sha256 over canonical JSON, stable across formatting and member order", () => {
    const d = policyDigest(doc);
    expect(d).toMatch(/^sha256:[0-9a-f]{64}$/);
    const reformatted = JSON.parse(
      `{ "rules" : [ { "tools":["a.*"], "effect":"allow","id":"r" } ],\n "default_effect":"deny" }`,
    );
    expect(policyDigest(reformatted)).toBe(d);
  });

  it("changes with content", () => {
    expect(policyDigest({ ...doc, default_effect: "allow" })).not.toBe(policyDigest(doc));
  });

  it("matches a known vector", () => {
    // sha256 of the RFC 8785 text {"default_effect":"deny","rules":[]}
    expect(policyDigest({ rules: [], default_effect: "deny" })).toBe(
      "sha256:4586ab2b40dc1784e80364929e82f017de55bdb6a328d190be934837c61d8409",
    );
  });
});
