import { describe, expect, it } from "vitest";
import { startPeriodic } from "./periodic.js";

const until = async (cond: () => boolean) => {
  while (!cond()) await new Promise((r) => setTimeout(r, 5));
};

describe("startPeriodic", () => {
  it("runs again at once while a pass reports work left, then waits for the interval", async () => {
    let passes = 0;
    const worker = startPeriodic({
      pass: async () => ++passes < 3,
      intervalMs: 60_000,
      firstDelayMs: 0,
      failure: "test pass failed",
      log: () => undefined,
    });
    await until(() => passes >= 3);
    await worker.stop();
    // Passes 1 and 2 reported work left; pass 3 did not, so the fourth waits a minute.
    expect(passes).toBe(3);
  });

  it("logs a failing pass and keeps going", async () => {
    const logged: string[] = [];
    let passes = 0;
    const worker = startPeriodic({
      pass: async () => {
        passes++;
        if (passes === 1) throw new Error("database gone");
        return false;
      },
      intervalMs: 1,
      firstDelayMs: 0,
      failure: "test pass failed",
      log: (msg) => logged.push(msg),
    });
    await until(() => passes >= 2);
    await worker.stop();
    expect(logged).toEqual(["test pass failed; retrying on the next pass"]);
  });

  it("stop waits for a pass under way and schedules nothing after it", async () => {
    let release!: () => void;
    let passes = 0;
    let ended = false;
    const worker = startPeriodic({
      pass: async () => {
        passes++;
        await new Promise<void>((r) => (release = r));
        ended = true;
        return true;
      },
      intervalMs: 1,
      firstDelayMs: 0,
      failure: "test pass failed",
      log: () => undefined,
    });
    await until(() => passes === 1);
    const stopping = worker.stop();
    release();
    await stopping;
    expect(ended).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    expect(passes).toBe(1);
  });
});
