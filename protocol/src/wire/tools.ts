import { z } from "zod";

/**
 * A tool's amount mapping: where in the arguments the amount and its currency are, so policies can
 * decide on `amount`. Paths are member names joined by dots, optionally starting with `$.`; the
 * currency is either read from the arguments or fixed by the tool.
 */
export const amountMappingSchema = z
  .strictObject({
    amount_path: z.string().min(1).max(512),
    currency_path: z.string().min(1).max(512).optional(),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/)
      .optional(),
  })
  .refine(
    (m) => (m.currency_path === undefined) !== (m.currency === undefined),
    "exactly one of currency_path and currency",
  );
export type AmountMapping = z.infer<typeof amountMappingSchema>;

/**
 * Whether the Gateway uses a tool's binding: `authorized`; `reauthorization_required` (authorized
 * once, bound to something else since: calls are refused TOOL_REAUTHORIZATION_REQUIRED until an
 * admin authorizes again); `unauthorized` (a draft never authorized).
 */
export const toolAuthorizationStates = ["authorized", "reauthorization_required", "unauthorized"] as const;

/** What a tool is bound to (server address, credential version and identity, upstream tool, schema and mapping digests) and its digest. */
export const toolBindingSchema = z.looseObject({
  mcp_server_id: z.uuid(),
  url: z.string().nullable(),
  credential_version: z.number().int(),
  server_kid: z.string().nullable(),
  upstream_name: z.string(),
  input_schema: z.string().nullable(),
  amount_mapping: z.string().nullable(),
  digest: z.string(),
});

/** The tool record: GET .../tools items, `{tool}` of GET, POST, PATCH and POST .../authorize. */
export const toolSchema = z.strictObject({
  id: z.uuid(),
  mcp_server_id: z.uuid(),
  exposed_name: z.string(),
  upstream_name: z.string(),
  action: z.string(),
  description: z.string().nullable(),
  input_schema: z.unknown(),
  amount_mapping: amountMappingSchema.nullable(),
  enabled: z.boolean(),
  binding: toolBindingSchema,
  authorization: z.strictObject({
    state: z.enum(toolAuthorizationStates),
    binding_digest: z.string().nullable(),
    authorized_at: z.string().nullable(),
    authorized_by: z.uuid().nullable(),
  }),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Tool = z.infer<typeof toolSchema>;
