import { z } from "zod";
import {
  authorizeAnswerSchema,
  authorizeRequestSchema,
  refusalContentSchema,
  resultServiceMetaSchema,
} from "@countersign/protocol/wire";

/**
 * The Gateway's wire as standalone JSON Schema files (draft 2020-12), for clients written in other
 * languages: the Python client's tests validate the answers they receive and its parsing against
 * them (clients/python/tests/schemas/, written by write-main.ts; a test fails when stale).
 */
const files = {
  "authorize-request.json": authorizeRequestSchema,
  "authorize-answer.json": authorizeAnswerSchema,
  "tool-refusal-content.json": refusalContentSchema,
  "result-service-meta.json": resultServiceMetaSchema,
} satisfies Record<string, z.ZodType>;

export const JSON_SCHEMAS_DIR = "clients/python/tests/schemas";

/** File name to text, as committed. */
export function gatewayJsonSchemaFiles(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(files).map(([name, schema]) => [
      name,
      `${JSON.stringify(z.toJSONSchema(schema, { io: "output" }), null, 2)}\n`,
    ]),
  );
}
