/**
 * Canonical JSON per RFC 8785 (JSON Canonicalization Scheme): the one byte
 * sequence every digest and signature of the evidence protocol is taken over.
 *
 * Written here rather than taken from a package so the rules a second
 * implementation must follow are visible in one place and so every refusal is
 * a named error: anything that is not plain JSON (NaN, Infinity, BigInt,
 * functions, symbols, cycles, class instances other than Date via toJSON, lone
 * UTF-16 surrogates) is refused instead of silently turned into something else.
 */

export class CanonicalJsonError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CanonicalJsonError";
  }
}

/** True when the string holds a UTF-16 surrogate without its partner (not encodable as UTF-8). */
export function hasLoneSurrogate(text: string): boolean {
  // String.prototype.isWellFormed (ES2024, native in Node 20): this check runs
  // on every string of every signed body and bundle, so it must not be a JS loop.
  return !(text as unknown as { isWellFormed(): boolean }).isWellFormed();
}

// JSON.stringify already escapes strings exactly as RFC 8785 3.2.2.2 asks
// (\b \t \n \f \r \" \\, other controls as lowercase \u00xx, nothing else);
// only lone surrogates need refusing first, which well-formed stringify would escape.
function serializeString(text: string): string {
  if (hasLoneSurrogate(text)) throw new CanonicalJsonError("string holds a lone UTF-16 surrogate");
  return JSON.stringify(text);
}

// ECMAScript Number-to-String is the RFC 8785 number format (3.2.2.3); -0 prints as 0.
function serializeNumber(n: number): string {
  if (!Number.isFinite(n)) throw new CanonicalJsonError(`number ${String(n)} is not JSON`);
  return JSON.stringify(n);
}

// The canonical text of objects that never change once it was taken: signed
// objects and their bodies (evidence/object.ts). A bundle holds them again, and
// its serialization reuses their text instead of walking them a second time
// (the bundle was a tenth of the Gateway's CPU per decision under `make profile`).
const sealed = new WeakMap<object, string>();

/**
 * Records `text` as the canonical JSON of `value`, which the caller promises never to change
 * again: canonicalJson then answers with `text` wherever `value` appears.
 */
export function sealCanonical(value: object, text: string): void {
  sealed.set(value, text);
}

/** The canonical text `value` was sealed with, if it was. */
export function sealedText(value: object): string | undefined {
  return sealed.get(value);
}

/**
 * Seals a document read from storage and its body (an identity document, a stored signed
 * object), which the caller will never change: what signObject does for what it signs.
 * A bundle then serializes it, and a digest is taken of its body, without walking it again.
 */
export function sealStored(document: { body: object }): void {
  if (sealed.has(document)) return;
  sealCanonical(document.body, canonicalJson(document.body));
  sealCanonical(document, canonicalJson(document));
}

// Member names repeat across every body of a kind ("type", "id", "issued_at"...): their
// text is computed once. Bounded in number and in length, so names from callers' arguments
// can neither grow it forever nor fill it with long strings.
const memberNames = new Map<string, string>();
const MEMBER_NAMES_KEPT = 4096;
const MEMBER_NAME_KEPT_LENGTH = 64;

/** A member name's canonical text followed by its colon. */
function memberName(name: string): string {
  let text = memberNames.get(name);
  if (text === undefined) {
    text = `${serializeString(name)}:`;
    if (name.length <= MEMBER_NAME_KEPT_LENGTH && memberNames.size < MEMBER_NAMES_KEPT)
      memberNames.set(name, text);
  }
  return text;
}

// Array.prototype.sort copies its array into a work array first: for the few members of a
// body that was a sixth of the Gateway's allocation per decision (sampling heap profile under
// `make bench`'s unloaded run), and every allocation brings the next young-generation pause
// closer. Small lists are sorted in place, by insertion; large ones (callers' arguments) by sort.
const SORTED_IN_PLACE = 24;

/** `names` in UTF-16 code unit order (RFC 8785 3.2.3), the order of `<` on strings. */
function sortedNames(names: string[]): string[] {
  if (names.length > SORTED_IN_PLACE) return names.sort();
  for (let i = 1; i < names.length; i++) {
    const name = names[i]!;
    let j = i - 1;
    while (j >= 0 && names[j]! > name) {
      names[j + 1] = names[j]!;
      j--;
    }
    names[j + 1] = name;
  }
  return names;
}

// The text is built by concatenation rather than by joining arrays of parts: with the names'
// text kept, 29 -> 17 µs for a 2 kB signed object (measured in a loop of 20,000).
function serialize(value: unknown, open: object[]): string {
  switch (typeof value) {
    case "string":
      return serializeString(value);
    case "number":
      return serializeNumber(value);
    case "boolean":
      return value ? "true" : "false";
    case "object":
      break;
    default:
      throw new CanonicalJsonError(`a ${typeof value} is not JSON`);
  }
  if (value === null) return "null";
  const known = sealed.get(value);
  if (known !== undefined) return known;
  if (open.includes(value)) throw new CanonicalJsonError("cyclic structure");
  if (value instanceof Date) return serializeString(value.toISOString());
  open.push(value);
  try {
    if (Array.isArray(value)) {
      // Arrays keep their order; holes and undefined are refused, not turned into null.
      let text = "[";
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        if (item === undefined) throw new CanonicalJsonError("array element is undefined");
        text += i === 0 ? serialize(item, open) : `,${serialize(item, open)}`;
      }
      return `${text}]`;
    }
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) {
      throw new CanonicalJsonError("only plain objects are JSON objects");
    }
    // Members sorted by their names as UTF-16 code units (RFC 8785 3.2.3): the
    // default string comparison of JavaScript. Undefined members are left out,
    // as JSON.stringify does, so optional fields can be written as undefined.
    const record = value as Record<string, unknown>;
    const names = sortedNames(Object.keys(record));
    let text = "{";
    for (const name of names) {
      const member = record[name];
      if (member === undefined) continue;
      text += `${text.length === 1 ? "" : ","}${memberName(name)}${serialize(member, open)}`;
    }
    return `${text}}`;
  } finally {
    open.pop();
  }
}

/** The RFC 8785 canonical text of a JSON value. Throws CanonicalJsonError for anything else. */
export function canonicalJson(value: unknown): string {
  // The objects being serialized, outermost first: a value met again among them is a cycle. An
  // array rather than a Set: a body is a few levels deep, and a Set's table (made per call, and
  // shrunk again as its members left) was a twentieth of the Gateway's allocation per decision.
  return serialize(value, []);
}

/** The canonical text as UTF-8 bytes: what is hashed and signed. */
export function canonicalBytes(value: unknown): Uint8Array {
  return new TextEncoder().encode(canonicalJson(value));
}
