import { z } from "zod";
import { gatewayStatuses } from "../../errors/gateway-codes.js";
import { agentExplanationSchema, observePolicySchema } from "./policy.js";
import { objectIdString } from "./fields.js";
import { MAX_WAIT_SECONDS } from "./authorize.js";

/**
 * The service's members of the Gateway's /mcp (SPEC 4.2): the per-call metadata of a
 * `tools/call` request, `_meta.service` of a result, and the refusal's
 * `structuredContent.service`. The rest of each JSON-RPC message is MCP's, and the MCP SDKs check it.
 */

/** Names under `service/` a `tools/call` request's `_meta` may carry; any other is refused INVALID_META. */
export const callMetaNames = ["service/idempotency-key", "service/wait-seconds"] as const;

/**
 * `params._meta` of a `tools/call` request: other members (progress tokens and the like) are the
 * client's and pass through; unknown `service/` names are refused by the Gateway (gateway/src/mcp/meta.ts).
 */
export const callMetaSchema = z.looseObject({
  "service/idempotency-key": z.string().min(1).max(200).optional(),
  "service/wait-seconds": z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(`approval wait in seconds; larger than ${MAX_WAIT_SECONDS} is lowered to ${MAX_WAIT_SECONDS}`),
});
export type CallMeta = z.infer<typeof callMetaSchema>;

/**
 * `_meta.service` of a result: a completed call, and a refusal that ended with a receipt (rejected,
 * cancelled, failed). `receipt_id` is absent when the Gateway could not read the receipt back (the
 * call did run); `policy` only for a call decided under an observe window.
 */
export const resultServiceMetaSchema = z.object({
  protected_action_id: z.uuid(),
  receipt_id: z.uuid().optional(),
  receipt_object_id: objectIdString.optional(),
  result_object_id: objectIdString.optional(),
  policy: observePolicySchema.optional(),
});
export type ResultServiceMeta = z.infer<typeof resultServiceMetaSchema>;

/**
 * `structuredContent.service` of a refusal (a tool result with `isError` true): `status`, `code`
 * and `detail`, and when applicable the members below. Open (`looseObject`): the Gateway lists
 * every tool's output schema widened by this one (gateway/src/mcp/output-schema.ts), and MCP
 * clients validate refusals against it, so a member a later Gateway adds must not fail them.
 */
export const refusalServiceSchema = z.looseObject({
  status: z.enum(gatewayStatuses),
  code: z.string(),
  detail: z.string(),
  protected_action_id: z.uuid().optional(),
  approval_request_id: z.uuid().nullable().optional(),
  expires_at: z.iso.datetime().nullable().optional(),
  retryable: z.boolean().optional(),
  policy: agentExplanationSchema.optional(),
  /** The action's error code of a failed run (for example INTERRUPTED), beside the refusal code. */
  error_code: z.string().optional(),
  task_object_id: objectIdString.nullable().optional(),
  proposal_object_id: objectIdString.nullable().optional(),
  receipt_object_id: objectIdString.nullable().optional(),
  receipt_id: z.uuid().nullable().optional(),
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

/**
 * `error.data` of the Gateway's own JSON-RPC errors (SPEC 7.3, docs/gateway.md): `service` when it
 * cannot process the request now (status `unavailable`, DATABASE_UNAVAILABLE or
 * GATEWAY_SHUTTING_DOWN, `retryable`), `retry_after_seconds` on a 429. Errors of the MCP SDK carry
 * data of their own, which this does not describe.
 */
export const rpcErrorDataSchema = z.object({
  service: z
    .object({
      status: z.enum(gatewayStatuses),
      code: z.string(),
      retryable: z.boolean().optional(),
    })
    .optional(),
  retry_after_seconds: z.number().int().min(1).optional(),
});
export type RpcErrorData = z.infer<typeof rpcErrorDataSchema>;

/** A JSON-RPC error answer of /mcp's HTTP level (SPEC 7.3); `data` as above when the Gateway says why. */
export const jsonRpcErrorAnswerSchema = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.string(), z.number(), z.null()]),
  error: z.object({
    code: z.number().int(),
    message: z.string(),
    data: z.unknown().optional(),
  }),
});
