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
  return { ...doc, components: { ...components, schemas }, paths };
}
