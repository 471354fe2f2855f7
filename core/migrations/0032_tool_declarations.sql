-- What an MCP server declared of a tool at discovery besides its name,
-- description and input schema (issue 40): title, icons, outputSchema,
-- annotations and execution, each as the server wrote it
-- (core/src/mcp-servers/tool-declaration.ts). The Gateway's tools/list
-- answers it; the binding pin carries its digest, so a declaration that
-- changes at a later discovery needs re-authorization. Null: no discovery
-- recorded one (a tool given its schema by hand, or made before this
-- column), or the server declared nothing more.
alter table tools add column declaration jsonb;
