import { describe, expect, it } from "vitest";
import { compilePolicy } from "../compile.js";
import { parsePolicy } from "../validate.js";

/** Each action operator through a one-rule policy: matched means the rule decided. */
function matches(condition: object, action: string): boolean {
  const p = compilePolicy(
    parsePolicy({
      rules: [{ id: "r", effect: "deny", conditions: [{ field: "action", ...condition }] }],
      default_effect: "allow",
    }),
  );
  return p.evaluate({ tool: "t", action }).rule_id === "r";
}

describe("action conditions", () => {
  it("matches: glob patterns", () => {
    const m = (pattern: string, action: string) => matches({ op: "matches", pattern }, action);
    expect(m("payments.*", "payments.send")).toBe(true);
    expect(m("payments.*", "payments.send.bulk")).toBe(true);
    expect(m("payments.*", "payment.send")).toBe(false);
    expect(m("*.delete", "repo.delete")).toBe(true);
    expect(m("repo.?et", "repo.get")).toBe(true);
    expect(m("repo.{get,list}", "repo.list")).toBe(true);
    expect(m("repo.{get,list}", "repo.put")).toBe(false);
    expect(m("files/*", "files/a/b")).toBe(false);
    expect(m("files/**", "files/a/b")).toBe(true);
    expect(m("!x", "y")).toBe(false);
    expect(m("exact", "exact")).toBe(true);
  });

  it("eq", () => {
    expect(matches({ op: "eq", value: "a.b" }, "a.b")).toBe(true);
    expect(matches({ op: "eq", value: "a.b" }, "A.B")).toBe(false);
  });

  it("in and not_in", () => {
    expect(matches({ op: "in", value: ["x", "y"] }, "y")).toBe(true);
    expect(matches({ op: "in", value: ["x", "y"] }, "z")).toBe(false);
    expect(matches({ op: "not_in", value: ["x", "y"] }, "z")).toBe(true);
    expect(matches({ op: "not_in", value: ["x", "y"] }, "x")).toBe(false);
  });

  it("starts_with and ends_with, one value or a list", () => {
    expect(matches({ op: "starts_with", value: "db." }, "db.drop")).toBe(true);
    expect(matches({ op: "starts_with", value: ["fs.", "db."] }, "fs.rm")).toBe(true);
    expect(matches({ op: "starts_with", value: ["fs.", "db."] }, "net.get")).toBe(false);
    expect(matches({ op: "ends_with", value: ".delete" }, "repo.delete")).toBe(true);
    expect(matches({ op: "ends_with", value: [".delete", ".drop"] }, "db.read")).toBe(false);
  });
});
