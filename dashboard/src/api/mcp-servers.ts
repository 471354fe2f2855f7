/** MCP servers, decision-only integrations and their tools (SPEC 2.3), through the one client. */
import type { Discovery, McpServer, Tool } from "@countersign/protocol/wire";
import type { Page } from "./types.js";
import { api } from "./client.js";

const base = (orgId: string) => `/orgs/${orgId}`;

export interface McpServerCreate {
  kind: "mcp" | "decision_only";
  name: string;
  url?: string;
  /** The whole Authorization header value the Gateway sends upstream; write-only. */
  authorization?: string;
}
export interface McpServerPatch {
  name?: string;
  status?: "active" | "disabled";
  url?: string;
  /** A new header value, or null to remove it; never read back. */
  authorization?: string | null;
  server_identity?: Record<string, unknown> | null;
}

export const mcpServersApi = {
  list: (orgId: string) => api.get<Page<McpServer>>(`${base(orgId)}/mcp-servers?limit=100`),
  get: (orgId: string, id: string) =>
    api.get<{ mcp_server: McpServer }>(`${base(orgId)}/mcp-servers/${id}`).then((r) => r.mcp_server),
  create: (orgId: string, body: McpServerCreate) =>
    api.post<{ mcp_server: McpServer }>(`${base(orgId)}/mcp-servers`, body).then((r) => r.mcp_server),
  update: (orgId: string, id: string, body: McpServerPatch) =>
    api.patch<{ mcp_server: McpServer }>(`${base(orgId)}/mcp-servers/${id}`, body).then((r) => r.mcp_server),
  remove: (orgId: string, id: string) => api.delete<void>(`${base(orgId)}/mcp-servers/${id}`),
  discover: (orgId: string, id: string) => api.post<Discovery>(`${base(orgId)}/mcp-servers/${id}/discover`),
};

export interface ToolFields {
  exposed_name?: string;
  upstream_name?: string;
  action?: string;
  description?: string | null;
  input_schema?: Record<string, unknown>;
  amount_mapping?: Tool["amount_mapping"];
  enabled?: boolean;
}

export const toolsApi = {
  list: (orgId: string, serverId?: string) =>
    api.get<Page<Tool>>(
      `${base(orgId)}/tools?limit=100${serverId ? `&mcp_server_id=${encodeURIComponent(serverId)}` : ""}`,
    ),
  get: (orgId: string, id: string) =>
    api.get<{ tool: Tool }>(`${base(orgId)}/tools/${id}`).then((r) => r.tool),
  create: (
    orgId: string,
    body: ToolFields & { mcp_server_id: string; exposed_name: string; action: string },
  ) => api.post<{ tool: Tool }>(`${base(orgId)}/tools`, body).then((r) => r.tool),
  update: (orgId: string, id: string, body: ToolFields) =>
    api.patch<{ tool: Tool }>(`${base(orgId)}/tools/${id}`, body).then((r) => r.tool),
  /** Authorizes exactly the binding the admin was shown: BINDING_CHANGED when it changed meanwhile. */
  authorize: (orgId: string, id: string, bindingDigest: string) =>
    api
      .post<{ tool: Tool }>(`${base(orgId)}/tools/${id}/authorize`, { binding_digest: bindingDigest })
      .then((r) => r.tool),
};
