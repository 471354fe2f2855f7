import { describe, expect, it } from "vitest";
import { findCondition, formatTime, setCondition } from "./conditions.js";

const t0 = new Date("2026-01-01T10:00:00.123Z");
const t1 = new Date("2026-01-01T11:00:00.000Z");

describe("setCondition", () => {
  it("adds a condition with the generation it describes and the time to the second", () => {
    const list = setCondition(
      undefined,
      { type: "Ready", status: "False", reason: "Pending", message: "waiting" },
      3,
      t0,
    );
    expect(list).toEqual([
      {
        type: "Ready",
        status: "False",
        reason: "Pending",
        message: "waiting",
        observedGeneration: 3,
        lastTransitionTime: "2026-01-01T10:00:00Z",
      },
    ]);
  });

  it("keeps lastTransitionTime when only the reason, message or generation change", () => {
    const first = setCondition(
      undefined,
      { type: "Ready", status: "False", reason: "Pending", message: "a" },
      1,
      t0,
    );
    const second = setCondition(
      first,
      { type: "Ready", status: "False", reason: "CloudApiError", message: "b" },
      2,
      t1,
    );
    expect(findCondition(second, "Ready")).toMatchObject({
      reason: "CloudApiError",
      message: "b",
      observedGeneration: 2,
      lastTransitionTime: formatTime(t0),
    });
  });

  it("moves lastTransitionTime when the status changes, and leaves other types alone", () => {
    let list = setCondition(
      undefined,
      { type: "Reconciled", status: "True", reason: "Synced", message: "" },
      1,
      t0,
    );
    list = setCondition(list, { type: "Ready", status: "False", reason: "Pending", message: "" }, 1, t0);
    list = setCondition(list, { type: "Ready", status: "True", reason: "Synced", message: "" }, 1, t1);
    expect(findCondition(list, "Ready")!.lastTransitionTime).toBe("2026-01-01T11:00:00Z");
    expect(findCondition(list, "Reconciled")!.lastTransitionTime).toBe("2026-01-01T10:00:00Z");
    expect(list.map((c) => c.type)).toEqual(["Reconciled", "Ready"]);
  });

  it("does not change the list it was given", () => {
    const first = setCondition(
      undefined,
      { type: "Ready", status: "False", reason: "Pending", message: "" },
      1,
      t0,
    );
    setCondition(first, { type: "Ready", status: "True", reason: "Synced", message: "" }, 1, t1);
    expect(first[0]!.status).toBe("False");
  });
});
