// The request budget on a clock the test moves: starts empty, never holds more than its burst,
// hands tokens out at its rate, and a pause (Retry-After) holds every request until it ends.
import { describe, expect, it } from "vitest";
import { RequestBudget, defaultBudget } from "./budget.js";

function clocked(perSecond: number, burst: number) {
  let now = 0;
  const sent: number[] = [];
  const budget = new RequestBudget({
    perSecond,
    burst,
    now: () => now,
    sleep: async (ms) => {
      now += ms;
    },
  });
  const send = async (n: number) => {
    for (let i = 0; i < n; i++) {
      await budget.take();
      sent.push(now);
    }
  };
  return {
    budget,
    sent,
    send,
    advance: (ms: number) => (now += ms),
    get now() {
      return now;
    },
  };
}

describe("RequestBudget", () => {
  it("starts empty: the first request waits one token's time", async () => {
    const c = clocked(10, 5);
    await c.send(1);
    expect(c.sent).toEqual([100]);
  });

  it("holds at most its burst after a quiet time, then hands out tokens at its rate", async () => {
    const c = clocked(10, 5);
    c.advance(60_000);
    await c.send(8);
    expect(c.sent.slice(0, 5)).toEqual([60_000, 60_000, 60_000, 60_000, 60_000]);
    expect(c.sent.slice(5)).toEqual([60_100, 60_200, 60_300]);
  });

  it("any minute holds at most burst + 60 × rate requests, under the Cloud API's 600 (SPEC 8.1)", async () => {
    const c = clocked(defaultBudget.perSecond, defaultBudget.burst);
    c.advance(120_000);
    await c.send(1000);
    const start = c.sent[0]!;
    const inFirstMinute = c.sent.filter((t) => t < start + 60_000).length;
    expect(inFirstMinute).toBe(defaultBudget.burst + 60 * defaultBudget.perSecond - 1);
    expect(inFirstMinute).toBeLessThan(600);
  });

  it("a pause holds every request until it ends", async () => {
    const c = clocked(10, 5);
    c.advance(10_000);
    await c.send(1);
    c.budget.pauseFor(3_000);
    await c.send(2);
    expect(c.sent).toEqual([10_000, 13_000, 13_000]);
  });
});
