import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseStrictJson } from "./strict-json.js";
import { textProblem, urlTextProblem } from "./text-rule.js";

const bytes = (s: string) => Buffer.from(s, "utf8");
const parse = (s: string | Buffer) => parseStrictJson(typeof s === "string" ? bytes(s) : s);

describe("strict JSON: the text rule over a raw body", () => {
  it("accepts JSON whose strings are well formed, with escapes and surrogate pairs", () => {
    const text = '{"a":"x\\"y\\\\","b":["\\ud83d\\ude00","é","\\u00e9"],"c":{"d":null,"e":[1,2,{"f":true}]}}';
    expect(parse(text)).toEqual({ ok: true, value: JSON.parse(text) });
    expect(parse('"just a string"')).toEqual({ ok: true, value: "just a string" });
    expect(parse("[]")).toEqual({ ok: true, value: [] });
  });

  it("refuses an empty body and invalid JSON as syntax problems", () => {
    expect(parse("")).toMatchObject({ ok: false, problem: "syntax" });
    expect(parse('{"a":')).toMatchObject({ ok: false, problem: "syntax" });
    expect(parse('{"a":"\u0000"}')).toMatchObject({ ok: false, problem: "syntax" });
  });

  it("refuses U+0000 escaped in a value or a member name, with the path", () => {
    expect(parse('{"arguments":{"note":["ok","a\\u0000b"]}}')).toMatchObject({
      ok: false,
      problem: "text",
      path: ["arguments", "note", 1],
      message: "text contains U+0000",
    });
    expect(parse('{"arguments":{"a\\u0000":1}}')).toMatchObject({
      ok: false,
      problem: "text",
      path: ["arguments", "(member name)"],
    });
  });

  it("refuses lone surrogates written as escapes, high or low, wherever they are", () => {
    for (const s of [
      '"\\ud800"',
      '"\\udc00"',
      '"\\ud800x"',
      '"\\ud800\\u0041"',
      '"\\ude00\\ud83d"',
      '"a\\ud800"',
    ]) {
      expect(parse(`{"tool":${s}}`), s).toMatchObject({
        ok: false,
        problem: "text",
        path: ["tool"],
        message: "text contains a lone surrogate",
      });
    }
    expect(parse('{"k":"\\uD83D\\uDE00"}')).toMatchObject({ ok: true });
  });

  it("refuses bytes that are not UTF-8 (raw surrogates, overlong forms, stray bytes) and says where", () => {
    const raw = (prefix: string, bad: number[], suffix: string) =>
      Buffer.concat([bytes(prefix), Buffer.from(bad), bytes(suffix)]);
    for (const bad of [
      [0xed, 0xa0, 0x80],
      [0xed, 0xb0, 0x80],
      [0xc0, 0x80],
      [0xff],
      [0xe2, 0x82],
      [0xf4, 0x90, 0x80, 0x80],
    ]) {
      expect(parse(raw('{"a":1,"arguments":{"x":"', bad, '"}}')), bad.join(",")).toMatchObject({
        ok: false,
        problem: "text",
        path: ["arguments", "x"],
        message: "text is not valid UTF-8",
      });
    }
    expect(parse(raw("[", [0xff], "]"))).toMatchObject({ ok: false, problem: "syntax" });
  });

  it("refuses an object naming the same member twice, at any depth, also when spelled with escapes", () => {
    expect(parse('{"amount":5,"amount":500}')).toMatchObject({
      ok: false,
      problem: "text",
      path: ["amount"],
      message: "an object names the same member twice",
    });
    expect(parse('{"a":{"b":[{"c":1},{"c":2,"d":3,"c":4}]}}')).toMatchObject({
      ok: false,
      path: ["a", "b", 1, "c"],
    });
    expect(parse('{"a":1,"\\u0061":2}')).toMatchObject({ ok: false, path: ["a"] });
    // The same name in sibling objects, and names differing by case, are not duplicates here.
    expect(parse('[{"a":1},{"a":2}]')).toMatchObject({ ok: true });
    expect(parse('{"a":{"a":{"a":1}},"A":1}')).toMatchObject({ ok: true });
  });

  it("refuses the prototype-poisoning member names fastify's own parser refuses", () => {
    expect(parse('{"__proto__":{"x":1}}')).toMatchObject({ ok: false, problem: "text" });
    expect(parse('{"constructor":{"prototype":{}}}')).toMatchObject({ ok: false, problem: "text" });
    expect(parse('{"constructor":"x","prototype":1}')).toMatchObject({ ok: true });
  });

  it("agrees with JSON.parse on every well-formed document without duplicates (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = JSON.stringify(v);
        const r = parse(text);
        const clean = acceptable(v);
        if (clean) expect(r).toEqual({ ok: true, value: JSON.parse(text) });
        else expect(r.ok).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it("finds a duplicate wherever a generated document has one (property)", () => {
    const name = fc
      .string({ minLength: 1, maxLength: 6 })
      .filter((s) => textProblem(s) === null && s !== "__proto__");
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), name, fc.jsonValue({ maxDepth: 1 }), (inner, n, other) => {
        fc.pre(acceptable(inner));
        const dup = `{"wrap":[${JSON.stringify(inner)},{${JSON.stringify(n)}:1,"z":${JSON.stringify(inner)},${JSON.stringify(n)}:${JSON.stringify(other)}}]}`;
        expect(parse(dup)).toMatchObject({ ok: false, problem: "text", path: ["wrap", 1, n] });
      }),
      { numRuns: 300 },
    );
  });
});

describe("the text rule for query strings, paths and single strings", () => {
  it("finds U+0000 and lone surrogates in a string", () => {
    expect(textProblem("fine ✓ 😀")).toBeNull();
    expect(textProblem("a\0b")).toBe("text contains U+0000");
    expect(textProblem("a\ud800b")).toBe("text contains a lone surrogate");
    expect(textProblem("\udc00")).toBe("text contains a lone surrogate");
  });

  it("refuses invalid percent-encoding, non-UTF-8 bytes and %00 in a URL part", () => {
    expect(urlTextProblem("tool=refund&outcome=final+x%C3%A9")).toBeNull();
    expect(urlTextProblem("/api/v1/orgs/abc")).toBeNull();
    expect(urlTextProblem("tool=%00")).toBe("text contains U+0000");
    expect(urlTextProblem("tool=%ZZ")).toBe("invalid percent-encoding");
    expect(urlTextProblem("tool=%A")).toBe("invalid percent-encoding");
    expect(urlTextProblem("tool=%ED%A0%80")).toBe("text is not valid UTF-8");
    expect(urlTextProblem("tool=%FF")).toBe("text is not valid UTF-8");
    expect(urlTextProblem("t\u00ff=1")).toBe("text is not valid UTF-8");
  });
});

/**
 * Whether the parser must take a generated value, judged on the value rather than its text (a string value
 * "__proto__" or a literal backslash-u0000 is fine; a member named so is not): no string or name breaks the
 * text rule, no member is named `__proto__`, and no `constructor` object has a `prototype` member
 * (fast-check's generators favour these names, so the properties must know them).
 */
function acceptable(v: unknown): boolean {
  if (typeof v === "string") return textProblem(v) === null;
  if (Array.isArray(v)) return v.every(acceptable);
  if (v === null || typeof v !== "object") return true;
  return Object.entries(v).every(
    ([k, inner]) =>
      textProblem(k) === null &&
      k !== "__proto__" &&
      !(k === "constructor" && isObject(inner) && Object.hasOwn(inner, "prototype")) &&
      acceptable(inner),
  );
}

function isObject(v: unknown): v is object {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
