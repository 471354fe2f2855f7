import { statement, type Queryable } from "@countersign/core/store";
import type { ToolDeclaration } from "@countersign/protocol/wire";

const PAGE = statement(
  "tools_list_page",
  `select t.exposed_name, t.description, t.input_schema, t.declaration
     from tools t join mcp_servers s on s.id = t.mcp_server_id
    where t.organization_id = $1 and t.enabled and s.kind = 'mcp' and s.status = 'active'
      and t.authorized_binding is not null and t.authorized_binding = t.binding
      and ($2::text is null or t.exposed_name collate "C" > $2)
    order by t.exposed_name collate "C" limit $3`,
);

/** A tool as tools/list shows it (tools-list.ts). */
export interface ListedToolRow {
  exposed_name: string;
  description: string | null;
  input_schema: Record<string, unknown> | null;
  declaration: ToolDeclaration | null;
}

/**
 * The organization's listable tools by exposed name (byte order), after the name `after` (null:
 * from the first), at most `limit`: enabled tools of active MCP servers whose binding is authorized.
 */
export async function listedTools(
  db: Queryable,
  organizationId: string,
  after: string | null,
  limit: number,
): Promise<ListedToolRow[]> {
  const { rows } = await db.query<ListedToolRow>(PAGE.with([organizationId, after, limit]));
  return rows;
}
