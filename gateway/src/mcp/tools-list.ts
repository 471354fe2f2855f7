import type { AuthenticatedKey } from "@countersign/core/keys";
import { declarationMembers } from "@countersign/core/mcp-servers";
import type { Pool } from "@countersign/core/store";
import type { ToolDeclaration } from "@countersign/protocol/wire";
import type { ListToolsResult } from "@modelcontextprotocol/sdk/types.js";
import { listedOutputSchema } from "./output-schema.js";
import { listedTools } from "./tools-store.js";

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
  const rows = await listedTools(pool, key.organizationId, after, PAGE_SIZE + 1);
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
