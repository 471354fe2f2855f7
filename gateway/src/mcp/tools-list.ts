import type { AuthenticatedKey } from "@countersign/core/keys";
import { declarationMembers } from "@countersign/core/mcp-servers";
import { statement, type Pool } from "@countersign/core/store";
import type { ToolDeclaration } from "@countersign/protocol/wire";
import type { ListToolsResult } from "@modelcontextprotocol/sdk/types.js";
import { listedOutputSchema } from "./output-schema.js";

export const PAGE_SIZE = 50;

type ListedTool = ListToolsResult["tools"][number];

/**
 * The declared members after the input schema, in MCP's order (the title goes
 * before the description); the output schema widened to admit the refusal's
 * structured content (./output-schema.ts).
 */
const declared = (d: ToolDeclaration) =>
  Object.fromEntries(
    declarationMembers
      .filter((m) => m !== "title" && d[m] !== undefined)
      .map((m) => [m, m === "outputSchema" ? listedOutputSchema(d.outputSchema!) : d[m]]),
  );

const PAGE = statement(
  "tools_list_page",
  `select t.exposed_name, t.description, t.input_schema, t.declaration
     from tools t join mcp_servers s on s.id = t.mcp_server_id
    where t.organization_id = $1 and t.enabled and s.kind = 'mcp' and s.status = 'active'
      and t.authorized_binding is not null and t.authorized_binding = t.binding
      and ($2::text is null or t.exposed_name collate "C" > $2)
    order by t.exposed_name collate "C" limit $3`,
);

/**
 * tools/list (SPEC 4.2): the organization's enabled tools of active MCP
 * servers whose binding is authorized, by exposed name, paged by an opaque
 * cursor (the last name of the page, base64url). Decision-only tools are
 * never listed (SPEC 1.3). Each tool carries what its server declared at the
 * discovery its authorized binding covers (title, icons, outputSchema,
 * annotations, execution) as declared, the output schema widened so that a
 * refusal's structured content satisfies it too (./output-schema.ts): clients
 * warn people with the annotations and check structured results against the
 * output schema.
 */
export async function listTools(
  pool: Pool,
  key: AuthenticatedKey,
  cursor: string | undefined,
): Promise<ListToolsResult> {
  const after = cursor === undefined ? null : Buffer.from(cursor, "base64url").toString("utf8");
  const { rows } = await pool.query<{
    exposed_name: string;
    description: string | null;
    input_schema: Record<string, unknown> | null;
    declaration: ToolDeclaration | null;
  }>(PAGE.with([key.organizationId, after, PAGE_SIZE + 1]));
  const page = rows.slice(0, PAGE_SIZE);
  return {
    tools: page.map((t) => ({
      name: t.exposed_name,
      ...(t.declaration?.title !== undefined ? { title: t.declaration.title } : {}),
      ...(t.description ? { description: t.description } : {}),
      inputSchema: (t.input_schema as ListedTool["inputSchema"]) ?? { type: "object" },
      // Stored only when MCP's Tool schema accepted it (core/src/mcp-servers/tool-declaration.ts).
      ...(t.declaration ? (declared(t.declaration) as Partial<ListedTool>) : {}),
    })),
    ...(rows.length > PAGE_SIZE
      ? { nextCursor: Buffer.from(page[page.length - 1]!.exposed_name, "utf8").toString("base64url") }
      : {}),
  };
}
