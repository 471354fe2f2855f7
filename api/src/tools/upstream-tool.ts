import { ServiceError } from "@countersign/protocol/errors";
import { checkInputSchema } from "@countersign/core/mcp-servers";
import type { Queryable } from "@countersign/core/store";
import type { ApiContext } from "../context.js";
import { readServer, type ServerRow } from "../mcp-servers/store.js";
import { discoverServer } from "../mcp-servers/upstream.js";

/** What a tool is bound to upstream: its server, named in a body, and the upstream tool's schema. */

/** A given input schema must be an MCP object schema of at most 64 KiB (422 UPSTREAM_SCHEMA_INVALID). */
export function requireSchema(schema: unknown): void {
  const check = checkInputSchema(schema);
  if (!check.ok)
    throw new ServiceError(
      "UPSTREAM_SCHEMA_INVALID",
      "the input schema is not an MCP object schema of at most 64 KiB",
      { reason: check.problem },
    );
}

/** The MCP server `mcp_server_id` names: one not of this organization is 422 MCP_SERVER_NOT_FOUND. */
export async function serverOfBody(db: Queryable, orgId: string, id: string): Promise<ServerRow> {
  try {
    return await readServer(db, orgId, id);
  } catch (err) {
    if (err instanceof ServiceError && err.code === "NOT_FOUND") {
      throw new ServiceError(
        "MCP_SERVER_NOT_FOUND",
        "mcp_server_id names no MCP server of this organization",
        { issues: [{ path: "mcp_server_id", code: "not_found", message: "no such MCP server" }] },
      );
    }
    throw err;
  }
}

/** The upstream tool's schema and description, from the server itself (a discovery, in a slot). */
export async function upstreamTool(ctx: ApiContext, orgId: string, server: ServerRow, name: string) {
  const found = (await discoverServer(ctx, orgId, server)).tools.find((t) => t.name === name);
  if (!found)
    throw new ServiceError(
      "UPSTREAM_TOOL_NOT_FOUND",
      `the MCP server lists no tool named ${JSON.stringify(name)}`,
    );
  if (found.schema_problem)
    throw new ServiceError(
      "UPSTREAM_SCHEMA_INVALID",
      "the upstream tool's input schema is not an MCP object schema of at most 64 KiB",
      { reason: found.schema_problem },
    );
  return found;
}
