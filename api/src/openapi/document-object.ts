import { createJsonSchemaTransformObject } from "fastify-type-provider-zod";
import { z } from "zod";
import { errorComponents } from "./errors.js";

const zodTransformObject = createJsonSchemaTransformObject({ schemaRegistry: errorComponents });

const json = z.record(z.string(), z.unknown());
/** What this module reads of the generated document; everything else passes through as it is. */
const generated = z.looseObject({
  components: z.looseObject({ schemas: json.optional() }).optional(),
  paths: z.record(
    z.string(),
    z.record(z.string(), z.looseObject({ responses: z.record(z.string(), json).optional() })),
  ),
});

const byKey = <T>(entries: [string, T][]) => entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * The whole document once every route is in it: the error body as a
 * component (zod's registry), each error answer shared by many operations
 * named once under components.responses (`Error409`) and referenced, and the
 * paths in order, so the committed copy reads and diffs well.
 */
export function transformObject(input: Parameters<typeof zodTransformObject>[0]) {
  const doc = generated.parse(zodTransformObject(input));
  const shared: Record<string, Record<string, unknown>> = {};
  for (const operations of Object.values(doc.paths)) {
    for (const operation of Object.values(operations)) {
      const responses = operation.responses ?? {};
      for (const [status, answer] of Object.entries(responses)) {
        if (/^2/.test(status)) continue;
        const name = `Error${status}`;
        shared[name] ??= answer;
        if (JSON.stringify(shared[name]) === JSON.stringify(answer)) {
          responses[status] = { $ref: `#/components/responses/${name}` };
        }
      }
    }
  }
  const used = JSON.stringify([doc.paths, shared]);
  const schemas = Object.fromEntries(
    Object.entries(doc.components?.schemas ?? {}).filter(([name]) =>
      used.includes(`"#/components/schemas/${name}"`),
    ),
  );
  const components = {
    ...doc.components,
    schemas,
    responses: Object.fromEntries(byKey(Object.entries(shared))),
  };
  const paths = Object.fromEntries(byKey(Object.entries(doc.paths)));
  return json.parse(portablePatterns({ ...doc, components, paths }));
}

/**
 * The document states the rules the API applies, so:
 *
 * Unicode property escapes (`\p{Cc}`) need a regex engine in Unicode mode,
 * which not every JSON Schema tool has (schemathesis's generator refuses
 * them), so the document spells the classes our schemas use as the code
 * points they stand for: Cc is U+0000-U+001F and U+007F-U+009F, Zl U+2028, Zp U+2029.
 *
 * zod's `z.email()` writes `format: "email"` beside its pattern; JSON Schema's
 * email format is RFC 5321's grammar, which accepts and refuses other addresses
 * than the pattern the API checks (schemathesis found addresses the format
 * refuses and the API takes), so only the pattern stays.
 */
const propertyClasses: [RegExp, string][] = [
  [/\\p\{Cc\}/g, "\\u0000-\\u001f\\u007f-\\u009f"],
  [/\\p\{Zl\}/g, "\\u2028"],
  [/\\p\{Zp\}/g, "\\u2029"],
];
function portablePatterns(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(portablePatterns);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "format" && value === "email" && "pattern" in node) continue;
    if (key === "pattern" && typeof value === "string") {
      let pattern = value;
      for (const [escape, range] of propertyClasses) pattern = pattern.replace(escape, range);
      if (/\\[pP]\{/.test(pattern)) throw new Error(`no portable spelling for the pattern ${value}`);
      out[key] = pattern;
    } else out[key] = portablePatterns(value);
  }
  return out;
}
