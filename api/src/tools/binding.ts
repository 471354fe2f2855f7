import { digestOf } from "@countersign/protocol/canonical";

/**
 * A tool's binding pin (SPEC 2.3): what an enabled tool is bound to. The
 * Gateway refuses TOOL_REAUTHORIZATION_REQUIRED while `tools.binding`
 * differs from `tools.authorized_binding` (compared as jsonb), so anything
 * that changes what a call reaches or how it is read is in here: the
 * server's address, credential version and identity, the upstream tool,
 * and digests of the input schema and amount mapping.
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
  };
}
export type Binding = ReturnType<typeof toolBinding>;

/** The digest an admin reviews and names when authorizing (POST .../authorize `binding_digest`). */
export const bindingDigest = (b: unknown) => digestOf(b);

/** Same binding: the jsonb comparison the Gateway makes, done on canonical JSON. */
export const sameBinding = (a: unknown, b: unknown) => a != null && b != null && digestOf(a) === digestOf(b);
