// MCP servers and decision-only integrations (SPEC 2.3, 4.4). The credential is write-only.
import type { CloudApiClient } from "./client.js";
import { allPages } from "./pages.js";
import { noContent } from "@countersign/client/cloud";
import {
  mcpServerAnswerSchema,
  mcpServerListSchema,
  type McpServer,
  type McpServerCreate,
  type McpServerPatch,
} from "@countersign/protocol/wire";

export type { McpServer, McpServerCreate, McpServerPatch };

export function mcpServers(client: CloudApiClient) {
  const base = (org: string) => `/orgs/${encodeURIComponent(org)}/mcp-servers`;
  const one = (org: string, id: string) => `${base(org)}/${encodeURIComponent(id)}`;
  return {
    async get(org: string, id: string): Promise<McpServer> {
      return (await client.get(one(org, id), mcpServerAnswerSchema)).mcp_server;
    },
    /** Names are unique within an organization: used to adopt a server whose id was lost. */
    async findByName(org: string, name: string): Promise<McpServer | undefined> {
      return (await allPages(client, base(org), mcpServerListSchema)).find((s) => s.name === name);
    },
    async create(org: string, body: McpServerCreate): Promise<McpServer> {
      return (await client.post(base(org), mcpServerAnswerSchema, body)).mcp_server;
    },
    async update(org: string, id: string, body: McpServerPatch): Promise<McpServer> {
      return (await client.patch(one(org, id), mcpServerAnswerSchema, body)).mcp_server;
    },
    async delete(org: string, id: string): Promise<void> {
      await client.delete(one(org, id), noContent);
    },
  };
}
