import { digestOf } from "@countersign/protocol/canonical";

/**
 * A tool's binding pin (SPEC 2.3): what an enabled tool is bound to. The
 * Gateway refuses TOOL_REAUTHORIZATION_REQUIRED while `tools.binding`
 * differs from `tools.authorized_binding` (compared as jsonb), so anything
 * that changes what a call reaches or how it is read is in here: the
 * server's address, credential version and identity, the upstream tool,
 * and digests of the input schema and amount mapping, and of the tool's
 * declaration (title, icons, outputSchema, annotations, execution) when the
 * server declared one: an output schema or annotation that changes at a later
 * discovery is a binding no one authorized (docs/gateway.md, "Tool
 * metadata"). A tool without a declaration has no `declaration` member, so
 * the pins written before it existed stay as they were.
 */
export interface BindingServer {
  id: string;
  url: string | null;
  credential_version: number;
  server_kid: string | null;
}

export interface BindingTool {
  upstream_name: string;
  input_schema: unknown;
  amount_mapping: unknown;
  declaration: unknown;
}

export function toolBinding(server: BindingServer, tool: BindingTool) {
  return {
    mcp_server_id: server.id,
    url: server.url,
    credential_version: server.credential_version,
    server_kid: server.server_kid,
    upstream_name: tool.upstream_name,
    input_schema: tool.input_schema == null ? null : digestOf(tool.input_schema),
    amount_mapping: tool.amount_mapping == null ? null : digestOf(tool.amount_mapping),
    ...(tool.declaration == null ? {} : { declaration: digestOf(tool.declaration) }),
  };
}
export type Binding = ReturnType<typeof toolBinding>;

/** The digest an admin reviews and names when authorizing (POST .../authorize `binding_digest`). */
export const bindingDigest = (b: unknown) => digestOf(b);

/** Same binding: the jsonb comparison the Gateway makes, done on canonical JSON. */
export const sameBinding = (a: unknown, b: unknown) => a != null && b != null && digestOf(a) === digestOf(b);
