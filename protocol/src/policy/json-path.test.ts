import { describe, expect, it } from "vitest";
import { MISSING, parsePath, readPath } from "./json-path.js";

describe("argument paths", () => {
  it("parses member names, quoted names and indexes", () => {
    expect(parsePath("$")).toEqual({ tokens: [] });
    expect(parsePath('$.a.b_c-d[0]["x y"][12]')).toEqual({ tokens: ["a", "b_c-d", 0, "x y", 12] });
    expect(parsePath('$["quote \\" inside"]')).toEqual({ tokens: ['quote " inside'] });
  });

  it("refuses anything else", () => {
    for (const bad of [
      "a.b",
      "$.",
      "$..a",
      "$.a[*]",
      "$[01]",
      "$[-1]",
      "$.1a",
      "$['a']",
      "$.a b",
      '$["unterminated]',
    ]) {
      expect(parsePath(bad)).toHaveProperty("error");
    }
  });

  it("reads own members only and tells missing from null", () => {
    const args = { a: { b: [10, { c: null }] } };
    expect(readPath(args, ["a", "b", 0])).toBe(10);
    expect(readPath(args, ["a", "b", 1, "c"])).toBeNull();
    expect(readPath(args, ["a", "b", 2])).toBe(MISSING);
    expect(readPath(args, ["a", "x"])).toBe(MISSING);
    expect(readPath(args, ["a", "b", "length"])).toBe(MISSING);
    expect(readPath(args, ["toString"])).toBe(MISSING);
    expect(readPath(args, ["a", 0])).toBe(MISSING);
  });
});
