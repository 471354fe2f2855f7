// Tools of MCP servers and decision-only tools (SPEC 2.3, 4.4). The API has no tool deletion: a
// tool goes with its server, or is disabled.
import { allPages } from "./pages.js";
import type { CloudApiClient } from "./client.js";
import {
  toolAnswerSchema,
  toolListSchema,
  type AmountMapping,
  type Tool,
  type ToolCreate,
  type ToolPatch,
} from "@countersign/protocol/wire";

export type { AmountMapping, Tool, ToolPatch };

/**
 * The members of POST .../tools the operator always gives and compares for drift: the upstream
 * name and amount mapping explicitly (never left to defaults), the input schema only when the
 * resource gives one (else the one discovered upstream).
 */
export type ToolFields = Required<
  Pick<ToolCreate, "exposed_name" | "upstream_name" | "action" | "amount_mapping">
> &
  Pick<ToolCreate, "input_schema">;

export function tools(client: CloudApiClient) {
  const base = (org: string) => `/orgs/${encodeURIComponent(org)}/tools`;
  const one = (org: string, id: string) => `${base(org)}/${encodeURIComponent(id)}`;
  /** The tools of one server. */
  const listOf = (org: string, serverId: string) =>
    allPages(client, `${base(org)}?mcp_server_id=${encodeURIComponent(serverId)}`, toolListSchema);
  return {
    async get(org: string, id: string): Promise<Tool> {
      return (await client.get(one(org, id), toolAnswerSchema)).tool;
    },
    listOf,
    /** Exposed names are unique within an organization: used to adopt a tool whose id was lost. */
    async findByExposedName(org: string, serverId: string, exposedName: string): Promise<Tool | undefined> {
      return (await listOf(org, serverId)).find((t) => t.exposed_name === exposedName);
    },
    /** Created as a disabled draft: enabling needs a signed-in owner or admin (SPEC 4.4). */
    async create(org: string, serverId: string, fields: ToolFields): Promise<Tool> {
      const body: ToolCreate = { mcp_server_id: serverId, ...fields, enabled: false };
      return (await client.post(base(org), toolAnswerSchema, body)).tool;
    },
    /** Authorizes the binding shown by `digest` (BINDING_CHANGED if it moved meanwhile). */
    async authorize(org: string, id: string, digest: string): Promise<Tool> {
      return (await client.post(`${one(org, id)}/authorize`, toolAnswerSchema, { binding_digest: digest }))
        .tool;
    },
    async update(org: string, id: string, fields: ToolPatch): Promise<Tool> {
      return (await client.patch(one(org, id), toolAnswerSchema, fields)).tool;
    },
  };
}
