import { describe, expect, it } from "vitest";
import { WaitLimits } from "./wait-limits.js";

describe("WaitLimits (SPEC 8.2: 20 per key, 1000 in all)", () => {
  it("admits 20 waits per key and refuses the 21st until one ends", () => {
    const w = new WaitLimits();
    for (let i = 0; i < 20; i++) expect(w.tryAcquire("k")).toBe(true);
    expect(w.tryAcquire("k")).toBe(false);
    expect(w.tryAcquire("other")).toBe(true);
    w.release("k");
    expect(w.tryAcquire("k")).toBe(true);
    expect(w.waiting).toBe(21);
  });

  it("admits 1000 waits over all keys and refuses the next whatever its key", () => {
    const w = new WaitLimits();
    for (let i = 0; i < 1000; i++) expect(w.tryAcquire(`key-${i % 50}`)).toBe(true);
    expect(w.tryAcquire("fresh")).toBe(false);
    w.release("key-0");
    expect(w.tryAcquire("fresh")).toBe(true);
  });
});
