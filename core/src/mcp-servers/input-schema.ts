import { canonicalBytes } from "@countersign/protocol/canonical";

/** SPEC 8.3: the input schema of an upstream tool is at most 64 KiB (as canonical JSON). */
export const MAX_INPUT_SCHEMA_BYTES = 64 * 1024;

export type SchemaCheck =
  { ok: true } | { ok: false; problem: "not_object_schema" | "too_large" | "not_json" };

/**
 * An MCP tool input schema (SPEC 2.3): a JSON object whose `type` is
 * "object", with `properties` an object when present, at most 64 KiB.
 */
export function checkInputSchema(schema: unknown): SchemaCheck {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema))
    return { ok: false, problem: "not_object_schema" };
  const s = schema as Record<string, unknown>;
  if (s.type !== "object") return { ok: false, problem: "not_object_schema" };
  if (
    s.properties !== undefined &&
    (typeof s.properties !== "object" || s.properties === null || Array.isArray(s.properties))
  ) {
    return { ok: false, problem: "not_object_schema" };
  }
  let size: number;
  try {
    size = canonicalBytes(schema).length;
  } catch {
    return { ok: false, problem: "not_json" };
  }
  return size > MAX_INPUT_SCHEMA_BYTES ? { ok: false, problem: "too_large" } : { ok: true };
}
