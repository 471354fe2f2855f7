import { describe, expect, it } from "vitest";
import { createLogger } from "./log.js";

describe("the operator's log lines", () => {
  it("are JSON with time in ISO 8601 (UTC) and the component", () => {
    const lines: string[] = [];
    const before = Date.now();
    createLogger("info", { write: (line: string) => void lines.push(line) }).info(
      { kind: "Agent" },
      "reconciled",
    );
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({ component: "operator", kind: "Agent", msg: "reconciled", level: 30 });
    expect(line.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(Date.parse(line.time as string)).toBeGreaterThanOrEqual(before);
  });
});
