import canonicalize from "canonicalize";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CanonicalJsonError, canonicalJson } from "./json.js";

// RFC 8785 section 3.2.2 and 3.2.3 examples and Appendix B number table.
describe("RFC 8785 test vectors", () => {
  it("serializes the section 3.2.2 example", () => {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
        '"string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",' +
        '"literals": [null, true, false]}',
    );
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it("sorts members by UTF-16 code units (section 3.2.3)", () => {
    const input = JSON.parse(
      '{"\\u20ac":"Euro Sign","\\r":"Carriage Return","\\ufb33":"Hebrew Letter Dalet With Dagesh",' +
        '"1":"One","\\ud83d\\ude00":"Emoji: Grinning Face","\\u0080":"Control",' +
        '"\\u00f6":"Latin Small Letter O With Diaeresis"}',
    );
    expect(canonicalJson(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","ö":"Latin Small Letter O With Diaeresis",' +
        '"€":"Euro Sign","😀":"Emoji: Grinning Face","דּ":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  const ieee = (hex: string) => Buffer.from(hex, "hex").readDoubleBE(0);
  const numbers: [string, string][] = [
    ["0000000000000000", "0"],
    ["8000000000000000", "0"],
    ["0000000000000001", "5e-324"],
    ["8000000000000001", "-5e-324"],
    ["7fefffffffffffff", "1.7976931348623157e+308"],
    ["ffefffffffffffff", "-1.7976931348623157e+308"],
    ["4340000000000000", "9007199254740992"],
    ["c340000000000000", "-9007199254740992"],
    ["4430000000000000", "295147905179352830000"],
    ["44b52d02c7e14af5", "9.999999999999997e+22"],
    ["44b52d02c7e14af6", "1e+23"],
    ["44b52d02c7e14af7", "1.0000000000000001e+23"],
    ["444b1ae4d6e2ef4e", "999999999999999700000"],
    ["444b1ae4d6e2ef4f", "999999999999999900000"],
    ["444b1ae4d6e2ef50", "1e+21"],
    ["3eb0c6f7a0b5ed8c", "9.999999999999997e-7"],
    ["3eb0c6f7a0b5ed8d", "0.000001"],
    ["41b3de4355555553", "333333333.3333332"],
    ["41b3de4355555554", "333333333.33333325"],
    ["41b3de4355555555", "333333333.3333333"],
    ["41b3de4355555556", "333333333.3333334"],
    ["41b3de4355555557", "333333333.33333343"],
    ["becbf647612f3696", "-0.0000033333333333333333"],
    ["43143ff3c1cb0959", "1424953923781206.2"],
  ];
  it.each(numbers)("serializes IEEE 754 %s as %s (Appendix B)", (hex, text) => {
    expect(canonicalJson(ieee(hex))).toBe(text);
  });

  it.each(["7fffffffffffffff", "7ff0000000000000", "fff0000000000000"])(
    "refuses NaN and Infinity (%s)",
    (hex) => {
      expect(() => canonicalJson(ieee(hex))).toThrow(CanonicalJsonError);
    },
  );
});

describe("refusals", () => {
  it.each([
    ["a lone high surrogate", "a\ud800b"],
    ["a lone low surrogate", "\udc00"],
    ["a lone surrogate in a member name", { "\ud800": 1 }],
    ["a BigInt", 1n],
    ["a function", () => 1],
    ["undefined", undefined],
    ["a symbol", Symbol("s")],
    ["an undefined array element", [1, undefined]],
    ["a class instance", new Map()],
  ])("refuses %s", (_, value) => {
    expect(() => canonicalJson(value)).toThrow(CanonicalJsonError);
  });

  it("refuses cycles but accepts a shared subtree", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(CanonicalJsonError);
    const shared = { a: 1 };
    expect(canonicalJson({ x: shared, y: shared })).toBe('{"x":{"a":1},"y":{"a":1}}');
  });

  it("leaves out undefined members as JSON.stringify does", () => {
    expect(canonicalJson({ b: undefined, a: 1 })).toBe('{"a":1}');
  });
});

// Property tests: SPEC 8.3 limits the numbers of tool arguments to whole numbers
// within ±(2^53 - 1), the range these properties exercise at its edges.
const maxWhole = Number.MAX_SAFE_INTEGER;
const wholeNumber = fc.oneof(
  fc.integer({ min: -maxWhole, max: maxWhole }),
  fc.constantFrom(maxWhole, -maxWhole, maxWhole - 1, -maxWhole + 1, 0, 1, -1, 2 ** 31, -(2 ** 31), 2 ** 32),
);
const text = fc.string({ unit: "binary", maxLength: 12 });
const json = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    wholeNumber,
    text,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(text, tie("value"), { maxKeys: 5 }),
  ),
})).value;

function reorder(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((v) => reorder(v, seed));
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    // A seed-driven rotation and reversal: a different insertion order, same members.
    const k = entries.length === 0 ? 0 : seed % entries.length;
    const moved = [...entries.slice(k), ...entries.slice(0, k)];
    if (seed % 2 === 1) moved.reverse();
    return Object.fromEntries(moved.map(([n, v]) => [n, reorder(v, seed)]));
  }
  return value;
}

describe("canonical JSON properties", () => {
  it("does not depend on member insertion order", () => {
    fc.assert(
      fc.property(json, fc.nat(), (value, seed) => {
        expect(canonicalJson(reorder(value, seed))).toBe(canonicalJson(value));
      }),
    );
  });

  it("round-trips through JSON.parse and is idempotent", () => {
    fc.assert(
      fc.property(json, (value) => {
        const text = canonicalJson(value);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it("agrees with the canonicalize package (differential)", () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(canonicalJson(value)).toBe(canonicalize(value));
      }),
    );
  });

  it("orders objects of any width as the canonicalize package does (small ones are sorted in place)", () => {
    fc.assert(
      fc.property(fc.dictionary(text, fc.nat(), { minKeys: 0, maxKeys: 60 }), (value) => {
        expect(canonicalJson(value)).toBe(canonicalize(value));
      }),
    );
  });

  it("writes whole numbers within ±(2^53-1) as plain decimal digits", () => {
    fc.assert(
      fc.property(wholeNumber, (n) => {
        const out = canonicalJson(n);
        expect(out).toMatch(/^-?(0|[1-9][0-9]*)$/);
        expect(out).toBe(Object.is(n, -0) ? "0" : BigInt(n).toString());
        expect(JSON.parse(out)).toBe(n === 0 ? 0 : n);
      }),
    );
  });

  it("keeps non-ASCII text as raw UTF-8 and escapes only controls, quote and backslash", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 40 }), (s) => {
        const out = canonicalJson(s);
        expect(JSON.parse(out)).toBe(s);
        // Every escape in the output is one RFC 8785 requires.
        for (const m of out.matchAll(/\\(u[0-9a-f]{4}|.)/g)) {
          const esc = m[1]!;
          if (esc.startsWith("u")) expect(parseInt(esc.slice(1), 16)).toBeLessThan(0x20);
          else expect(['"', "\\", "b", "t", "n", "f", "r"]).toContain(esc);
        }
        expect(Buffer.from(out, "utf8").toString("utf8")).toBe(out);
      }),
    );
  });

  it("refuses any string with a lone surrogate", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 8 }),
        fc.integer({ min: 0xd800, max: 0xdfff }),
        fc.string({ unit: "grapheme-ascii", maxLength: 8 }),
        (before, unit, after) => {
          const s = `${before.replace(/[\ud800-\udfff]/g, "")}${String.fromCharCode(unit)}${after}`;
          expect(() => canonicalJson({ v: s })).toThrow(CanonicalJsonError);
        },
      ),
    );
  });
});
