// zod → the structural OpenAPI v3 subset Kubernetes accepts in a CRD. zod's own converter does
// the work (target openapi-3.0, input side so defaults are not "required"); this module removes
// what a structural schema forbids or what only adds noise: `properties` next to
// `additionalProperties`, the long regex zod adds to date-time strings, and the safe-integer
// bounds zod puts on every integer.
import { z } from "zod";

type Schema = Record<string, unknown>;

const SAFE = Number.MAX_SAFE_INTEGER;

function clean(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(clean);
  if (node === null || typeof node !== "object") return node;
  const out: Schema = {};
  for (const [key, value] of Object.entries(node as Schema)) out[key] = clean(value);

  if (out["x-kubernetes-preserve-unknown-fields"] === true) {
    delete out.properties;
    delete out.additionalProperties;
    delete out.required;
  }
  if (out.properties !== undefined) {
    // An object with listed properties is closed by pruning already; `additionalProperties`
    // next to `properties` is not allowed in a structural schema.
    delete out.additionalProperties;
    if (Object.keys(out.properties as Schema).length === 0) delete out.properties;
  }
  if (out.format === "date-time") delete out.pattern;
  if (out.type === "integer") {
    if (out.maximum === SAFE) delete out.maximum;
    if (out.minimum === -SAFE) delete out.minimum;
    out.format = "int64";
  }
  delete out.$schema;
  return out;
}

export function toOpenApi(schema: z.ZodType): Schema {
  return clean(
    z.toJSONSchema(schema, { target: "openapi-3.0", io: "input", unrepresentable: "throw" }),
  ) as Schema;
}
