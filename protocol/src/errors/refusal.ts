import { z } from "zod";
import { gatewayStatuses } from "./gateway-codes.js";

/**
 * `structuredContent` of a refusal on the Gateway's /mcp (SPEC 4.2): a tool
 * result with `isError` true whose structured content is `{service}`, holding
 * `status`, `code` and `detail`, and when applicable `protected_action_id`,
 * `approval_request_id`, `expires_at`, `retryable`, `policy` (and the
 * `error_code` of a failed run), which stay open members here.
 */
export const refusalServiceSchema = z.looseObject({
  status: z.enum(gatewayStatuses),
  code: z.string(),
  detail: z.string(),
});
export const refusalContentSchema = z.strictObject({ service: refusalServiceSchema });
export type RefusalContent = z.infer<typeof refusalContentSchema>;

/**
 * The same shape as a JSON Schema, for what MCP clients validate: the Gateway
 * lists each output schema widened by it (gateway/src/mcp/output-schema.ts).
 * Without `$schema`, since it is embedded in another document.
 */
export const refusalContentJsonSchema: Readonly<Record<string, unknown>> = (() => {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(refusalContentSchema, { io: "output" });
  return schema;
})();
