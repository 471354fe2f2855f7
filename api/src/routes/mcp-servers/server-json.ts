import type { McpServer } from "@countersign/protocol/wire";

export interface ServerRow {
  id: string;
  organization_id: string;
  name: string;
  kind: "mcp" | "decision_only";
  url: string | null;
  credential_encrypted: Buffer | null;
  credential_version: number;
  server_kid: string | null;
  status: "active" | "disabled";
  created_at: Date;
  updated_at: Date;
}

export const SERVER_COLUMNS =
  "id, organization_id, name, kind, url, credential_encrypted, credential_version, server_kid, status, created_at, updated_at";

/** The MCP server record of SPEC 2.3: the credential is never returned, only whether one is set and its version. */
export function serverJson(s: ServerRow): McpServer {
  return {
    id: s.id,
    kind: s.kind,
    name: s.name,
    status: s.status,
    url: s.url,
    credential:
      s.kind === "mcp"
        ? { configured: s.credential_encrypted !== null, version: s.credential_version }
        : null,
    server_kid: s.server_kid,
    created_at: s.created_at.toISOString(),
    updated_at: s.updated_at.toISOString(),
  };
}
