import type { FastifySchemaValidationError } from "fastify";
import type { Issue } from "@countersign/protocol/errors";

/**
 * fastify validation errors (from the zod validator) as the `details.issues`
 * of SPEC 7.1: a dotted path, a code and a message, never the submitted value.
 * An unknown member becomes one `unknown_member` issue per member name.
 */
export function issuesOf(errors: FastifySchemaValidationError[]): Issue[] {
  return errors.flatMap((e) => {
    const base = e.instancePath.split("/").filter(Boolean);
    if (e.keyword === "unrecognized_keys") {
      const keys = ((e.params as { keys?: string[] }).keys ?? []).slice(0, 20);
      return keys.map((k) => ({
        path: [...base, k].join("."),
        code: "unknown_member",
        message: "unknown member",
      }));
    }
    return [{ path: base.join("."), code: e.keyword, message: e.message ?? "invalid" }];
  });
}
