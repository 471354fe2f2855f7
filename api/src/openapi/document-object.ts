import { createJsonSchemaTransformObject } from "fastify-type-provider-zod";
import { errorComponents } from "./errors.js";

const zodTransformObject = createJsonSchemaTransformObject({ schemaRegistry: errorComponents });
type Input = Parameters<typeof zodTransformObject>[0];
type Json = Record<string, unknown>;

/**
 * The whole document once every route is in it: the error body as a
 * component (zod's registry), each error answer shared by many operations
 * named once under components.responses (`Error409`) and referenced, and the
 * paths in order, so the committed copy reads and diffs well.
 */
export function transformObject(input: Input) {
  const doc = zodTransformObject(input) as Json & { paths: Record<string, Record<string, Json>> };
  const shared: Record<string, Json> = {};
  for (const operations of Object.values(doc.paths)) {
    for (const operation of Object.values(operations)) {
      const responses = operation.responses as Record<string, Json> | undefined;
      for (const [status, answer] of Object.entries(responses ?? {})) {
        if (/^2/.test(status)) continue;
        const name = `Error${status}`;
        shared[name] ??= answer;
        if (JSON.stringify(shared[name]) === JSON.stringify(answer)) {
          responses![status] = { $ref: `#/components/responses/${name}` };
        }
      }
    }
  }
  const responses = Object.fromEntries(Object.entries(shared).sort(([a], [b]) => (a < b ? -1 : 1)));
  const components = { ...(doc.components as Json), responses };
  const schemas = { ...(components.schemas as Json) };
  const text = JSON.stringify(doc.paths);
  for (const name of Object.keys(schemas)) {
    if (!text.includes(`"#/components/schemas/${name}"`) && !JSON.stringify(shared).includes(`/${name}"`)) {
      delete schemas[name];
    }
  }
  const paths = Object.fromEntries(
    Object.entries(doc.paths).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
  return portablePatterns({ ...doc, components: { ...components, schemas }, paths });
}

/**
 * Unicode property escapes (`\p{Cc}`) need a regex engine in Unicode mode,
 * which not every JSON Schema tool has (schemathesis's generator refuses
 * them), so the document spells the classes our schemas use as the code
 * points they stand for: Cc is U+0000-U+001F and U+007F-U+009F, Zl U+2028, Zp U+2029.
 */
const propertyClasses: [RegExp, string][] = [
  [/\\p\{Cc\}/g, "\\u0000-\\u001f\\u007f-\\u009f"],
  [/\\p\{Zl\}/g, "\\u2028"],
  [/\\p\{Zp\}/g, "\\u2029"],
];
function portablePatterns<T>(node: T): T {
  if (Array.isArray(node)) return node.map(portablePatterns) as T;
  if (node === null || typeof node !== "object") return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "pattern" && typeof value === "string") {
      let pattern = value;
      for (const [escape, range] of propertyClasses) pattern = pattern.replace(escape, range);
      if (/\\[pP]\{/.test(pattern)) throw new Error(`no portable spelling for the pattern ${value}`);
      out[key] = pattern;
    } else out[key] = portablePatterns(value);
  }
  return out as T;
}
