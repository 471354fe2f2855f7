/** MCP servers and decision-only integrations (SPEC 2.3): registration, settings, discovery. */
import {
  discoveryAnswerSchema,
  mcpServerAnswerSchema,
  mcpServerListSchema,
  noContentSchema,
  type McpServerCreate,
  type McpServerPatch,
} from "@countersign/protocol/wire";
import { cloud } from "./cloud.js";
import { inOrg, seg } from "./paths.js";

export type { McpServerCreate, McpServerPatch };
const one = (orgId: string, id: string) => inOrg(orgId, `/mcp-servers/${seg(id)}`);

export const mcpServerKeys = {
  all: (orgId: string) => ["mcp-servers", orgId] as const,
  one: (serverId: string) => ["mcp-server", serverId] as const,
};

export const mcpServersApi = {
  list: (orgId: string) =>
    cloud.request("GET", inOrg(orgId, "/mcp-servers"), mcpServerListSchema, { query: { limit: 100 } }),
  get: (orgId: string, id: string) =>
    cloud.request("GET", one(orgId, id), mcpServerAnswerSchema).then((r) => r.mcp_server),
  create: (orgId: string, body: McpServerCreate) =>
    cloud
      .request("POST", inOrg(orgId, "/mcp-servers"), mcpServerAnswerSchema, { body })
      .then((r) => r.mcp_server),
  update: (orgId: string, id: string, body: McpServerPatch) =>
    cloud.request("PATCH", one(orgId, id), mcpServerAnswerSchema, { body }).then((r) => r.mcp_server),
  remove: (orgId: string, id: string) => cloud.request("DELETE", one(orgId, id), noContentSchema),
  discover: (orgId: string, id: string) =>
    cloud.request("POST", `${one(orgId, id)}/discover`, discoveryAnswerSchema, { body: {} }),
};
