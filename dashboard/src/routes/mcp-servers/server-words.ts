import type { McpServer } from "@countersign/protocol/wire";

/** What a server is, in the words the pages use. */
export const kindName = (s: Pick<McpServer, "kind">) =>
  s.kind === "mcp" ? "MCP server" : "decision-only integration";

/**
 * The field of a server's form that a refusal is about, by its code (SPEC 7: URL_NOT_ALLOWED for
 * the address, NAME_TAKEN for the name), so the sentence shows under that field.
 */
export const serverRefusalFields = { URL_NOT_ALLOWED: "url", NAME_TAKEN: "name" } as const;
