import { Stack, Text, Title } from "@mantine/core";
import type { Tool } from "@countersign/protocol/wire";
import { JsonBlock } from "../../components/JsonBlock.js";

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
    <Stack gap="xs" component="section">
      <Title order={2} size="h3">
        Declared by the server
      </Title>
      {tool.declaration ? (
        <>
          <Text c="dimmed" size="sm">
            Agents see this in tools/list as the server declared it. If a later discovery finds it changed,
            the tool needs re-authorization.
          </Text>
          <JsonBlock value={tool.declaration} label="Declared by the server" testId="tool-declaration" />
        </>
      ) : (
        <Text c="dimmed" size="sm" data-testid="tool-declaration">
          Nothing recorded: the server declared nothing beyond the input schema, or no discovery has read it
          yet.
        </Text>
      )}
    </Stack>
  );
}
