/**
 * JSON as the service accepts it: the bytes are UTF-8, the text is JSON, and
 * beyond what JSON.parse checks, no string or member name carries U+0000 or a
 * lone surrogate (an unpaired `\ud800` escape) and no object names the same
 * member twice. JSON.parse alone keeps the last of two equal members and lets
 * lone surrogates through, which PostgreSQL and canonical JSON then replace or
 * refuse; so this reads the raw text once, linearly, after JSON.parse has
 * vouched for its syntax.
 */
export type JsonPath = (string | number)[];

export type StrictJson =
  | { ok: true; value: unknown }
  | { ok: false; problem: "syntax"; message: string }
  | { ok: false; problem: "text"; path: JsonPath; message: string; value?: unknown };

const utf8 = new TextDecoder("utf-8", { fatal: true });
const lenientUtf8 = new TextDecoder("utf-8");

/** Parses `bytes` as JSON under the text rule. Never throws. */
export function parseStrictJson(bytes: Uint8Array): StrictJson {
  if (bytes.length === 0) return { ok: false, problem: "syntax", message: "the body is empty" };
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return invalidUtf8(bytes);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: "syntax", message: "the body is not valid JSON" };
  }
  const found = scanJsonText(text);
  if (found) return { ok: false, problem: "text", path: found.path, message: found.message, value };
  return { ok: true, value };
}

/** Where the first invalid UTF-8 sequence sits in the JSON, told as a text problem (or a syntax one). */
function invalidUtf8(bytes: Uint8Array): StrictJson {
  const text = lenientUtf8.decode(bytes);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: "syntax", message: "the body is not valid JSON (nor valid UTF-8)" };
  }
  const at = lenientUtf8.decode(bytes.subarray(0, firstInvalidUtf8(bytes))).length;
  const found = scanJsonText(text, at);
  return { ok: false, problem: "text", path: found?.path ?? [], message: "text is not valid UTF-8", value };
}

/** Byte offset of the first byte that does not start or continue a valid UTF-8 sequence. */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let n: number;
    let min: number;
    if (c >= 0xc2 && c <= 0xdf) [n, min] = [1, 0x80];
    else if (c >= 0xe0 && c <= 0xef) [n, min] = [2, 0x800];
    else if (c >= 0xf0 && c <= 0xf4) [n, min] = [3, 0x10000];
    else return i;
    let cp = c & (0x3f >> n);
    for (let k = 1; k <= n; k++) {
      const d = b[i + k];
      if (d === undefined || (d & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (d & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += n + 1;
  }
  return b.length;
}

interface Frame {
  object: boolean;
  /** Member names seen so far (objects), made on the second member. */
  names: Set<string> | null;
  first: string | undefined;
  /** The member being read (objects) or the element index (arrays). */
  at: string | number;
  /** This object is the value of a `constructor` member. */
  constructorValue: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function hex4(text: string, at: number): number {
  let v = 0;
  for (let k = 0; k < 4; k++) {
    const d = text.charCodeAt(at + k);
    v = v * 16 + (d <= 0x39 ? d - 0x30 : (d | 0x20) - 0x57);
  }
  return v;
}

/**
 * The first text-rule violation in `text`, which must be valid JSON, with its
 * path; or, with `stopAt`, the path of the string covering that character
 * offset (used to place an invalid UTF-8 byte). Null when the text is clean.
 */
export function scanJsonText(text: string, stopAt = -1): { path: JsonPath; message: string } | null {
  const n = text.length;
  // Every open container, innermost last; its `at` is the path segment inside it.
  const stack: Frame[] = [];
  let expectName = false;
  let nextBackslash = text.indexOf("\\");
  if (nextBackslash < 0) nextBackslash = n;
  const path = (last?: string): JsonPath => {
    const p: JsonPath = stack.map((f) => f.at);
    if (last !== undefined) p[p.length - 1] = last;
    return p;
  };
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // A string: jump from quote to quote, stopping only at escapes.
      const start = i;
      let j = i + 1;
      let escaped = false;
      let problem: string | null = null;
      for (;;) {
        const q = text.indexOf('"', j);
        if (nextBackslash < j) {
          nextBackslash = text.indexOf("\\", j);
          if (nextBackslash < 0) nextBackslash = n;
        }
        if (nextBackslash > q) {
          j = q + 1;
          break;
        }
        escaped = true;
        const b = nextBackslash;
        j = b + 2;
        if (text.charCodeAt(b + 1) !== 0x75 /* u */) continue;
        j = b + 6;
        const unit = hex4(text, b + 2);
        if (unit === 0) problem ??= "text contains U+0000";
        else if (unit >= 0xd800 && unit <= 0xdbff) {
          if (text.charCodeAt(b + 6) === BACKSLASH && text.charCodeAt(b + 7) === 0x75) {
            const low = hex4(text, b + 8);
            if (low >= 0xdc00 && low <= 0xdfff) {
              j = b + 12;
              continue;
            }
          }
          problem ??= "text contains a lone surrogate";
        } else if (unit >= 0xdc00 && unit <= 0xdfff) problem ??= "text contains a lone surrogate";
      }
      i = j;
      if (expectName) {
        expectName = false;
        const f = stack[stack.length - 1]!;
        if (problem || (stopAt >= 0 && stopAt < j))
          return { path: path("(member name)"), message: problem ? `a member name: ${problem}` : "" };
        const name = escaped ? (JSON.parse(text.slice(start, j)) as string) : text.slice(start + 1, j - 1);
        f.at = name;
        if (f.first === undefined) f.first = name;
        else {
          if (f.names === null) f.names = new Set([f.first]);
          if (f.names.has(name)) return { path: path(), message: "an object names the same member twice" };
          f.names.add(name);
        }
        // The prototype-poisoning members fastify's own parser refuses.
        if (name === "__proto__" || (name === "prototype" && f.constructorValue))
          return { path: path(), message: "member name not allowed" };
      } else if (problem || (stopAt >= 0 && stopAt < j)) {
        return { path: path(), message: problem ?? "" };
      }
      continue;
    }
    switch (c) {
      case 0x7b /* { */: {
        const parent = stack[stack.length - 1];
        stack.push({
          object: true,
          names: null,
          first: undefined,
          at: "",
          constructorValue: parent?.object === true && parent.at === "constructor",
        });
        expectName = true;
        break;
      }
      case 0x5b /* [ */:
        stack.push({ object: false, names: null, first: undefined, at: 0, constructorValue: false });
        break;
      case 0x2c /* , */: {
        const f = stack[stack.length - 1]!;
        if (f.object) expectName = true;
        else f.at = (f.at as number) + 1;
        break;
      }
      case 0x7d /* } */:
      case 0x5d /* ] */:
        stack.pop();
        expectName = false;
        break;
    }
    i++;
  }
  return null;
}
