/**
 * JSON as an attacker writes it: a small tree that serializes to raw bytes,
 * so a request can carry what JSON.stringify never writes (a member named
 * twice, a lone surrogate as an escape or as UTF-8-encoded bytes, bytes that
 * are not UTF-8, a truncated document).
 */
export type Json = null | boolean | number | string | Json[] | Obj | Raw;
/** An object as a list of members: names may repeat. */
export interface Obj {
  members: [Name, Json][];
}
/** Text written verbatim (already quoted where it is a string). */
export interface Raw {
  raw: Buffer;
}
export type Name = string | Raw;

export const obj = (members: [Name, Json][]): Obj => ({ members });
export const raw = (...parts: (string | number[])[]): Raw => ({
  raw: Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : Buffer.from(p)))),
});
const isRaw = (v: unknown): v is Raw => typeof v === "object" && v !== null && "raw" in v;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && "members" in v;

/** A plain JSON value as a tree. */
export function tree(v: unknown): Json {
  if (Array.isArray(v)) return v.map(tree);
  if (typeof v === "object" && v !== null) return obj(Object.entries(v).map(([k, x]) => [k, tree(x)]));
  return v as Json;
}

export function serialize(v: Json): Buffer {
  const out: Buffer[] = [];
  const write = (x: Json | Name): void => {
    if (isRaw(x)) out.push(x.raw);
    else if (Array.isArray(x)) {
      out.push(Buffer.from("["));
      x.forEach((e, i) => {
        if (i) out.push(Buffer.from(","));
        write(e);
      });
      out.push(Buffer.from("]"));
    } else if (isObj(x)) {
      out.push(Buffer.from("{"));
      x.members.forEach(([k, e], i) => {
        if (i) out.push(Buffer.from(","));
        write(k);
        out.push(Buffer.from(":"));
        write(e);
      });
      out.push(Buffer.from("}"));
    } else out.push(Buffer.from(JSON.stringify(x) ?? "null", "utf8"));
  };
  write(v);
  return Buffer.concat(out);
}

/** A copy of `o` with member `name` set (replaced where present, else added). */
export function withMember(o: Json, name: Name, value: Json): Json {
  if (!isObj(o)) return o;
  const members = o.members.filter(([k]) => k !== name);
  return obj([...members, [name, value]]);
}

/** Where a tree can be changed: each function rebuilds the whole tree with the change made there. */
export interface Places {
  /** Replace the value at a place (the root, a member's value, an element). */
  values: ((v: Json) => Json)[];
  /** Add a member to an object. */
  members: ((name: Name, v: Json) => Json)[];
  /** Name an existing member again, with another value: the duplicate JSON.parse would silently collapse. */
  duplicates: ((v: Json) => Json)[];
}

export function places(root: Json): Places {
  const p: Places = { values: [], members: [], duplicates: [] };
  const visit = (node: Json, rebuild: (n: Json) => Json) => {
    p.values.push(rebuild);
    if (Array.isArray(node)) {
      node.forEach((e, i) => visit(e, (n) => rebuild(node.map((x, j) => (j === i ? n : x)))));
    } else if (isObj(node)) {
      node.members.forEach(([k, e], i) => {
        visit(e, (n) => rebuild(obj(node.members.map((m, j) => (j === i ? [m[0], n] : m)))));
        p.duplicates.push((v) => rebuild(obj([...node.members, [k, v]])));
      });
      p.members.push((name, v) => rebuild(obj([...node.members, [name, v]])));
    }
  };
  visit(root, (n) => n);
  return p;
}
