import { describe, expect, it } from "vitest";
import { backoffDelay } from "./backoff.js";
import { WorkQueue } from "./work-queue.js";

describe("WorkQueue", () => {
  it("holds a key once however often it is added", async () => {
    const q = new WorkQueue();
    q.add("ns/a");
    q.add("ns/b");
    q.add("ns/a");
    expect(q.depth).toBe(2);
    expect(await q.get()).toBe("ns/a");
    expect(await q.get()).toBe("ns/b");
    expect(q.depth).toBe(0);
  });

  it("never hands a key being processed to a second worker, and requeues it once done", async () => {
    const q = new WorkQueue();
    q.add("ns/a");
    const key = await q.get();
    q.add("ns/a");
    q.add("ns/a");
    expect(q.depth).toBe(0); // still being processed
    q.done(key!);
    expect(q.depth).toBe(1);
    expect(await q.get()).toBe("ns/a");
  });

  it("wakes a waiting worker", async () => {
    const q = new WorkQueue();
    const next = q.get();
    q.add("ns/x");
    expect(await next).toBe("ns/x");
  });

  it("delays failed keys exponentially per key and starts over after forget", () => {
    const q = new WorkQueue({ backoff: { baseMs: 100, maxMs: 1000, jitter: 0 } });
    expect([
      q.addRateLimited("k"),
      q.addRateLimited("k"),
      q.addRateLimited("k"),
      q.addRateLimited("k"),
      q.addRateLimited("k"),
    ]).toEqual([100, 200, 400, 800, 1000]);
    expect(q.addRateLimited("other")).toBe(100);
    q.forget("k");
    expect(q.addRateLimited("k")).toBe(100);
    q.shutDown();
  });

  it("brings a rate-limited key back after its delay", async () => {
    const q = new WorkQueue({ backoff: { baseMs: 20, maxMs: 20, jitter: 0 } });
    q.addRateLimited("ns/late");
    expect(q.depth).toBe(0);
    expect(await q.get()).toBe("ns/late");
  });

  it("answers undefined to waiting workers when shut down", async () => {
    const q = new WorkQueue();
    const next = q.get();
    q.shutDown();
    expect(await next).toBeUndefined();
    q.add("ns/a");
    expect(q.depth).toBe(0);
  });
});

describe("backoffDelay", () => {
  it("draws jitter below the exponential delay, never above", () => {
    const opts = { baseMs: 1000, maxMs: 30_000, jitter: 0.5 };
    expect(backoffDelay(3, { ...opts, random: () => 0 })).toBe(4000);
    expect(backoffDelay(3, { ...opts, random: () => 0.999999 })).toBe(2000);
    expect(backoffDelay(20, { ...opts, random: () => 0 })).toBe(30_000);
  });
});
