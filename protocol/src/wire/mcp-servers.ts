import { z } from "zod";
import { pageSchema } from "./pages.js";
import { managedBySchema } from "./managed-by.js";
import { nameSchema } from "./names.js";
import { MAX_URL_LENGTH } from "./urls.js";
import { toolDeclarationSchema } from "./tools.js";

export const mcpServerKinds = ["mcp", "decision_only"] as const;
export const mcpServerStatuses = ["active", "disabled"] as const;

/**
 * The MCP server (or decision-only integration) record: GET .../mcp-servers
 * items, `{mcp_server}` of GET, POST and PATCH. The authorization header is
 * never answered, only whether one is set and its version.
 */
export const mcpServerSchema = z.strictObject({
  id: z.uuid(),
  /** The Kubernetes resource that manages the record (api/src/kubernetes), null when people do. */
  managed_by: managedBySchema.nullable().optional(),
  kind: z.enum(mcpServerKinds),
  name: z.string(),
  status: z.enum(mcpServerStatuses),
  url: z.string().nullable(),
  credential: z.strictObject({ configured: z.boolean(), version: z.number().int() }).nullable(),
  server_kid: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type McpServer = z.infer<typeof mcpServerSchema>;

export const mcpServerAnswerSchema = z.strictObject({ mcp_server: mcpServerSchema });

/** A header value: visible ASCII and spaces, no line breaks (RFC 9110 field-value, what fetch accepts). */
export const AUTHORIZATION_PATTERN = /^[\x21-\x7e][\x20-\x7e]*$/;
export const MAX_AUTHORIZATION_LENGTH = 8192;

const status = z.enum(mcpServerStatuses);
const url = z.string().min(1).max(MAX_URL_LENGTH);
/** The whole Authorization header value the Gateway sends upstream, e.g. `Bearer ...`. */
const authorization = z
  .string()
  .min(1)
  .max(MAX_AUTHORIZATION_LENGTH)
  .regex(AUTHORIZATION_PATTERN, "a header value on one line");

/** POST .../mcp-servers: an MCP server at a URL, or a decision-only integration. */
export const mcpServerCreateSchema = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("mcp"),
    name: nameSchema,
    url,
    authorization: authorization.optional(),
    status: status.default("active"),
  }),
  z.strictObject({ kind: z.literal("decision_only"), name: nameSchema, status: status.default("active") }),
]);
export type McpServerCreate = z.input<typeof mcpServerCreateSchema>;

/** PATCH .../mcp-servers/<id>: any of the members; null removes the credential or the identity. */
export const mcpServerPatchSchema = z
  .strictObject({
    name: nameSchema,
    status,
    url,
    authorization: authorization.nullable(),
    server_identity: z.record(z.string(), z.unknown()).nullable(),
  })
  .partial();
export type McpServerPatch = z.infer<typeof mcpServerPatchSchema>;

/** POST .../mcp-servers/<id>/discover: the server's tools as listed upstream, matched to configured tools. */
export const discoveryAnswerSchema = z.strictObject({
  tools: z.array(
    z.strictObject({
      name: z.string(),
      description: z.string().nullable(),
      input_schema: z.unknown(),
      schema_valid: z.boolean(),
      schema_problem: z.string().nullable(),
      /** What the server declares of the tool besides its input schema (title, icons, outputSchema, annotations, execution). */
      declaration: toolDeclarationSchema.nullable(),
      tool_id: z.uuid().nullable(),
    }),
  ),
  pages: z.number().int(),
  bytes: z.number().int(),
});
export type Discovery = z.infer<typeof discoveryAnswerSchema>;

/** Why a listed tool's input schema cannot be used (UPSTREAM_SCHEMA_INVALID if chosen). */
export const schemaProblems = ["not_object_schema", "too_large", "not_json"] as const;

/** One tool of POST .../mcp-servers/<id>/discover, with the tool already made from it, if any. */
export const discoveredToolSchema = z.strictObject({
  name: z.string(),
  description: z.string().nullable(),
  input_schema: z.unknown(),
  schema_valid: z.boolean(),
  schema_problem: z.enum(schemaProblems).nullable(),
  declaration: toolDeclarationSchema.nullable(),
  tool_id: z.uuid().nullable(),
});

export type DiscoveredTool = z.infer<typeof discoveredToolSchema>;

/** The answer of POST .../mcp-servers/<id>/discover: what tools/list said, over how many pages and bytes. */
export const discoverySchema = z.strictObject({
  tools: z.array(discoveredToolSchema),
  pages: z.number().int(),
  bytes: z.number().int(),
});

/** GET .../mcp-servers: a page of servers. */
export const mcpServerListSchema = pageSchema(mcpServerSchema);
