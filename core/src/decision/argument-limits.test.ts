import { describe, expect, it } from "vitest";
import { checkArguments } from "./argument-limits.js";

function nest(levels: number): Record<string, unknown> {
  let v: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) v = { a: v };
  return v;
}

describe("argument limits (SPEC 8.3)", () => {
  it("accepts ordinary arguments and returns their canonical text", () => {
    const r = checkArguments({ b: 1, a: ["x", true, null, { c: -3 }] });
    expect(r).toEqual({ ok: true, canonical: '{"a":["x",true,null,{"c":-3}],"b":1}' });
  });

  it("requires an object", () => {
    for (const v of [[], "x", 1, null]) expect(checkArguments(v).problem).toBe("not_an_object");
  });

  it("allows 28 levels and refuses 29 (the arguments object is level 1)", () => {
    expect(checkArguments(nest(28)).ok).toBe(true);
    expect(checkArguments(nest(29)).problem).toBe("too_deep");
    let arr: unknown = [];
    for (let i = 3; i < 29; i++) arr = [arr];
    expect(checkArguments({ x: arr }).ok).toBe(true);
    expect(checkArguments({ x: [arr] }).problem).toBe("too_deep");
  });

  it("allows whole numbers within ±(2^53-1) only", () => {
    expect(checkArguments({ n: Number.MAX_SAFE_INTEGER, m: -Number.MAX_SAFE_INTEGER }).ok).toBe(true);
    expect(checkArguments({ n: Number.MAX_SAFE_INTEGER + 1 }).problem).toBe("number_out_of_range");
    expect(checkArguments({ n: -(2 ** 60) }).problem).toBe("number_out_of_range");
    expect(checkArguments({ n: 1.5 }).problem).toBe("not_whole_number");
    expect(checkArguments({ n: [0.1] }).problem).toBe("not_whole_number");
  });

  it("refuses U+0000 in values and in member names", () => {
    expect(checkArguments({ s: "a\u0000b" }).problem).toBe("nul_character");
    expect(checkArguments({ "a\u0000": 1 }).problem).toBe("nul_character");
    expect(checkArguments({ s: "a\ud800b" }).problem).toBe("lone_surrogate");
    expect(checkArguments({ "\udc00": 1 }).problem).toBe("lone_surrogate");
    expect(checkArguments({ s: "\ud83d\ude00" })).toMatchObject({ ok: true, canonical: '{"s":"😀"}' });
  });

  it("refuses member names differing only by case, at any depth", () => {
    expect(checkArguments({ Amount: 1, amount: 2 }).problem).toBe("case_duplicate_member");
    expect(checkArguments({ x: [{ id: 1, ID: 2 }] }).problem).toBe("case_duplicate_member");
    expect(checkArguments({ a: { id: 1 }, b: { ID: 2 } }).ok).toBe(true);
  });

  it("refuses more than 224 KiB of canonical JSON", () => {
    const fits = { s: "x".repeat(224 * 1024 - 8) };
    expect(checkArguments(fits).ok).toBe(true);
    expect(checkArguments({ s: "x".repeat(224 * 1024 - 7) }).problem).toBe("too_large");
  });

  it("refuses more than 512 KiB as a receipt prints them (indented)", () => {
    // Many tiny members deep down: under 224 KiB canonically, over 512 KiB once
    // every member has its own indented line.
    const wide = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, 0]));
    expect(checkArguments(wide).ok).toBe(true);
    let nested: Record<string, unknown> = wide;
    for (let i = 0; i < 8; i++) nested = { l: nested };
    const r = checkArguments(nested);
    expect(JSON.stringify(nested).length).toBeLessThan(224 * 1024);
    expect(Buffer.byteLength(JSON.stringify(nested, null, 2))).toBeGreaterThan(512 * 1024);
    expect(r.problem).toBe("too_large_indented");
  });
});
