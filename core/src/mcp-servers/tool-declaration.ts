import { ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import { toolDeclarationSchema, type ToolDeclaration } from "@countersign/protocol/wire";
import { canonicalBytes } from "@countersign/protocol/canonical";

/**
 * What an MCP server declares of a tool besides its name, description and
 * input schema, in the order MCP's Tool lists them: a display title, icons,
 * the output schema its structured results follow, annotations (readOnlyHint,
 * destructiveHint, idempotentHint, openWorldHint...) and how it runs
 * (`execution.taskSupport`). Read at discovery, stored with the tool
 * (`tools.declaration`), covered by its binding pin and listed by the
 * Gateway's tools/list as declared, the output schema widened to admit a
 * refusal (gateway/src/mcp/output-schema.ts; docs/gateway.md, "Tool metadata").
 */
export const declarationMembers = ["title", "icons", "outputSchema", "annotations", "execution"] as const;

/** SPEC 8.3's bound on an input schema, applied to each declared member too (as canonical JSON). */
export const MAX_DECLARATION_MEMBER_BYTES = 64 * 1024;

const memberSchemas = {
  title: ToolSchema.shape.title,
  icons: ToolSchema.shape.icons,
  outputSchema: ToolSchema.shape.outputSchema,
  annotations: ToolSchema.shape.annotations,
  execution: ToolSchema.shape.execution,
};

function fits(value: unknown): boolean {
  try {
    return canonicalBytes(value).length <= MAX_DECLARATION_MEMBER_BYTES;
  } catch {
    return false;
  }
}

/**
 * The declaration of one tool as tools/list gave it: each member kept as the
 * server wrote it (hints MCP does not name yet included) when it is what MCP
 * defines and at most 64 KiB. A member that is not is left out: a client
 * refuses a whole tools/list whose one tool breaks MCP's schema, so passing it
 * on would hide every tool of the organization. Null when nothing is kept.
 */
export function readToolDeclaration(listed: Record<string, unknown>): ToolDeclaration | null {
  const kept: Record<string, unknown> = {};
  for (const member of declarationMembers) {
    const value = listed[member];
    if (value === undefined) continue;
    if (!memberSchemas[member].safeParse(value).success || !fits(value)) continue;
    kept[member] = value;
  }
  return Object.keys(kept).length ? toolDeclarationSchema.parse(kept) : null;
}
