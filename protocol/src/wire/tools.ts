import { z } from "zod";
import { pageSchema } from "./pages.js";
import { managedBySchema } from "./managed-by.js";

/**
 * A tool's amount mapping (SPEC 2.3): where in the arguments the amount and
 * its currency are, so policies can decide on `amount`. Paths are member
 * names joined by dots, optionally starting with `$.` (`$.payment.amount`).
 * The currency is either read from the arguments or fixed by the tool.
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

const digest = z.string().regex(/^sha256:[0-9a-f]{64}$/);

/**
 * What the MCP server declared of a tool besides its name, description and input schema (MCP's Tool
 * members, each kept as the server wrote it): read at discovery, listed by the Gateway's tools/list,
 * covered by the binding pin. Members MCP does not define are not kept (core/src/mcp-servers).
 */
export const toolDeclarationSchema = z.strictObject({
  title: z.string().optional(),
  icons: z.array(z.record(z.string(), z.unknown())).optional(),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  annotations: z.record(z.string(), z.unknown()).optional(),
  execution: z.record(z.string(), z.unknown()).optional(),
});
export type ToolDeclaration = z.infer<typeof toolDeclarationSchema>;

/**
 * What an enabled tool is bound to (the binding pin): the credential version and digests of the
 * input schema, amount mapping and declaration, with the server's address and identity and the upstream tool
 * when the Cloud API wrote the pin (pins seeded by older code carry only the first three, and the
 * amount mapping itself), and the pin's digest.
 */
export const toolBindingSchema = z.strictObject({
  mcp_server_id: z.uuid().optional(),
  url: z.string().nullable().optional(),
  credential_version: z.number().int(),
  server_kid: z.string().nullable().optional(),
  upstream_name: z.string().optional(),
  input_schema: digest.nullable(),
  amount_mapping: z.union([digest, z.record(z.string(), z.unknown())]).nullable(),
  /** The digest of the tool's declaration; absent when the server declared nothing beyond its schema. */
  declaration: digest.optional(),
  digest,
});

export const toolAuthorizationStates = ["authorized", "reauthorization_required", "unauthorized"] as const;

/** The tool record: GET .../tools items, `{tool}` of GET, POST, PATCH and POST .../authorize. */
export const toolSchema = z.strictObject({
  id: z.uuid(),
  /** The Kubernetes resource that manages the record (api/src/kubernetes), null when people do. */
  managed_by: managedBySchema.nullable().optional(),
  mcp_server_id: z.uuid(),
  exposed_name: z.string(),
  upstream_name: z.string(),
  action: z.string(),
  description: z.string().nullable(),
  input_schema: z.unknown(),
  amount_mapping: amountMappingSchema.nullable(),
  /** What the server declared at the last discovery that recorded it; null when none did, or it declared nothing more. */
  declaration: toolDeclarationSchema.nullable().optional(),
  enabled: z.boolean(),
  binding: toolBindingSchema,
  authorization: z.strictObject({
    state: z.enum(toolAuthorizationStates),
    binding_digest: digest.nullable(),
    authorized_at: z.string().nullable(),
    authorized_by: z.uuid().nullable(),
  }),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Tool = z.infer<typeof toolSchema>;

export const toolAnswerSchema = z.strictObject({ tool: toolSchema });

const oneLine = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[^\p{Cc}\p{Zl}\p{Zp}]*$/u, "one line without control characters");
/** The members a tool is written with; the exposed name is unique within the organization, 1 to 128 characters. */
const toolFields = {
  exposed_name: oneLine(128),
  upstream_name: oneLine(512),
  action: oneLine(200),
  description: z.string().max(4096).nullable(),
  input_schema: z.record(z.string(), z.unknown()),
  amount_mapping: amountMappingSchema.nullable(),
  enabled: z.boolean(),
};

/** POST .../tools: the upstream name defaults to the exposed one, the input schema to the discovered one. */
export const toolCreateSchema = z.strictObject({ mcp_server_id: z.uuid(), ...toolFields }).partial({
  upstream_name: true,
  description: true,
  input_schema: true,
  amount_mapping: true,
  enabled: true,
});
export type ToolCreate = z.input<typeof toolCreateSchema>;

/** PATCH .../tools/<id>: any of the members. */
export const toolPatchSchema = z.strictObject(toolFields).partial();
export type ToolPatch = z.infer<typeof toolPatchSchema>;

/** POST .../tools/<id>/authorize: the binding the admin saw, refused BINDING_CHANGED if it moved. */
export const toolAuthorizeSchema = z.strictObject({ binding_digest: digest });

/** GET .../tools: a page of tools. */
export const toolListSchema = pageSchema(toolSchema);
