import { describe, expect, it } from "vitest";
import { retryDelayMs } from "./schedule.js";

describe("retry schedule (SPEC 6.4)", () => {
  it.each([
    [1, 30_000],
    [2, 60_000],
    [3, 120_000],
    [4, 240_000],
    [5, 480_000],
    [6, 960_000],
    [7, 1_920_000],
    [8, null],
  ])("after failed attempt %i the next comes in %s ms", (n, ms) => {
    expect(retryDelayMs(n)).toBe(ms);
  });
});
