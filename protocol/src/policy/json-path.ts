/**
 * JSON paths into tool arguments: `$` then `.name`, `["any name"]` or `[index]`
 * steps, e.g. `$.payment.to["iban"]` or `$.items[0].sku`. No wildcards or
 * filters: a condition reads exactly one value, so its meaning is plain.
 */

export type PathToken = string | number;

export interface ParsedPath {
  tokens: PathToken[];
}

const NAME = /^[A-Za-z_][A-Za-z0-9_-]*/;

/** Tokens of a path, or a message saying why it is not one. */
export function parsePath(path: string): ParsedPath | { error: string } {
  if (!path.startsWith("$")) return { error: "a path starts with $" };
  const tokens: PathToken[] = [];
  let i = 1;
  while (i < path.length) {
    const c = path[i];
    if (c === ".") {
      const m = NAME.exec(path.slice(i + 1));
      if (!m) return { error: `expected a member name after "." at ${i}` };
      tokens.push(m[0]);
      i += 1 + m[0].length;
    } else if (c === "[") {
      const rest = path.slice(i + 1);
      const index = /^(0|[1-9]\d{0,8})\]/.exec(rest);
      if (index) {
        tokens.push(Number(index[1]));
        i += 1 + index[0].length;
        continue;
      }
      // JSON string syntax inside brackets, so any member name can be spelled.
      const quoted = /^"((?:[^"\\]|\\.)*)"\]/.exec(rest);
      if (!quoted) return { error: `expected an index or a quoted name after "[" at ${i}` };
      try {
        tokens.push(JSON.parse(`"${quoted[1]}"`) as string);
      } catch {
        return { error: `invalid quoted name at ${i}` };
      }
      i += 1 + quoted[0].length;
    } else {
      return { error: `unexpected "${c}" at ${i}` };
    }
  }
  return { tokens };
}

/** Marker for "nothing at that path"; distinct from a present null. */
export const MISSING: unique symbol = Symbol("missing");

/** The value at the path, or MISSING. Only own members are read: no prototype lookups. */
export function readPath(root: unknown, tokens: readonly PathToken[]): unknown {
  let v: unknown = root;
  for (const t of tokens) {
    if (typeof t === "number") {
      if (!Array.isArray(v) || t >= v.length) return MISSING;
      v = v[t];
    } else {
      if (typeof v !== "object" || v === null || Array.isArray(v) || !Object.hasOwn(v, t)) return MISSING;
      v = (v as Record<string, unknown>)[t];
    }
  }
  return v;
}
