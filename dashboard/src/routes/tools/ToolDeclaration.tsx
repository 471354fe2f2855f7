import type { Tool } from "@countersign/protocol/wire";

/**
 * What the MCP server declared of the upstream tool besides its input schema (title, icons,
 * outputSchema, annotations such as readOnlyHint and destructiveHint, execution), as the last
 * discovery that read it recorded it. Agents get exactly this in tools/list; it is part of the
 * binding, so a declaration a later discovery finds changed needs re-authorization, and this is
 * what an admin reviews before authorizing (docs/gateway.md, "Tool metadata").
 */
export function ToolDeclaration({ tool }: { tool: Tool }) {
  // A decision-only integration has no server to declare anything.
  if (!tool.binding.url) return null;
  return (
    <section>
      <h2>Declared by the server</h2>
      {tool.declaration ? (
        <>
          <p className="muted">
            Agents see this in tools/list as the server declared it. If a later discovery finds it changed,
            the tool needs re-authorization.
          </p>
          <pre
            className="json"
            tabIndex={0}
            aria-label="Declared by the server"
            data-testid="tool-declaration"
          >
            {JSON.stringify(tool.declaration, null, 2)}
          </pre>
        </>
      ) : (
        <p className="muted" data-testid="tool-declaration">
          Nothing recorded: the server declared nothing beyond the input schema, or no discovery has read it
          yet.
        </p>
      )}
    </section>
  );
}
