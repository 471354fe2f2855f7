import { refusalContentJsonSchema } from "@countersign/protocol/wire";

type Schema = Record<string, unknown>;

/**
 * The output schema tools/list answers for a tool whose server declared one:
 * `{type: "object", anyOf: [declared, refusal]}`, the declared schema first
 * and intact, the refusal's `structuredContent` (SPEC 4.2, `{service: {status,
 * code, detail, …}}`) second.
 *
 * Why: a refusal is a tool result with `isError` true and
 * `structuredContent.service`, which no upstream's output schema admits, and
 * the TypeScript SDK v1 client (`@modelcontextprotocol/sdk` up to 1.32.2,
 * modelcontextprotocol/typescript-sdk#1943) checks `structuredContent` against
 * the listed output schema even when `isError` is true: every refusal of such
 * a tool would become the client's own -32602 and the agent would never see
 * it. An allowed call's result is the upstream's own and still satisfies the
 * first branch. The binding pin covers the declared schema, not this one.
 *
 * JSON Pointer `$ref`s resolve from the document's root, which is now the
 * wrapper: `$defs` and `definitions` are hoisted to it, so `#/$defs/…` and
 * `#/definitions/…` still resolve, and any other pointer into the declared
 * schema (`#`, `#/properties/…`) is moved under `#/anyOf/0`; `$schema` is
 * written at the root too. A declared schema with its own `$id` is a resource
 * of its own, whose `$ref`s resolve inside it: it is embedded untouched. So
 * the first branch is byte for byte what the server declared unless it had
 * `$defs`, `definitions` or other root pointers.
 */
export function listedOutputSchema(declared: Schema): Schema {
  const refusal = structuredClone(refusalContentJsonSchema) as Schema;
  const { $defs, definitions, ...rest } = declared;
  // The dialect is the document's: at the root, and kept in the branch, where it changes nothing.
  const dialect = declared.$schema === undefined ? {} : { $schema: declared.$schema };
  if (typeof declared.$id === "string")
    return { ...dialect, type: "object", anyOf: [structuredClone(declared), refusal] };
  const hoisted = Object.fromEntries(
    Object.entries({ $defs, definitions }).filter(([, v]) => v !== undefined),
  );
  return { ...dialect, type: "object", anyOf: [relocate(rest), refusal], ...(relocate(hoisted) as Schema) };
}

/** Members whose values are data (instances), never subschemas: their `$ref`-looking members are not references. */
const DATA = new Set(["const", "enum", "default", "examples"]);
/** Members whose values map names (which may be anything, even `$ref`) to subschemas. */
const MAPS = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
  "dependencies",
]);
/** Pointers into the hoisted members resolve as they did before. */
const HOISTED = /^#\/(\$defs|definitions)(\/|$)/;
const POINTER = /^#(\/|$)/;

const isObject = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A copy of a (sub)schema of the declared document with its root-relative
 * JSON Pointer `$ref`s moved under the first branch. A subschema with its own
 * `$id` starts a resource whose `#` is itself: it is copied as is. Anchors
 * (`#name`) and other URIs are not pointers into the root and stay.
 */
function relocate(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(relocate);
  if (!isObject(node)) return node;
  if (typeof node.$id === "string") return structuredClone(node);
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => {
      if (k === "$ref" && typeof v === "string" && POINTER.test(v) && !HOISTED.test(v))
        return [k, `#/anyOf/0${v.slice(1)}`];
      if (DATA.has(k)) return [k, structuredClone(v)];
      if (MAPS.has(k) && isObject(v))
        return [k, Object.fromEntries(Object.entries(v).map(([name, s]) => [name, relocate(s)]))];
      return [k, relocate(v)];
    }),
  );
}
