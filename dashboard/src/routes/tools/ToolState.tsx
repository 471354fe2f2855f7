import { Group, VisuallyHidden } from "@mantine/core";
import type { Tool } from "@countersign/protocol/wire";
import { StatusBadge } from "../../components/StatusBadge.js";

/**
 * Enabled or draft, and whether the Gateway accepts what it is bound to. Read aloud (and by tests)
 * as one phrase: "draft (disabled), never authorized".
 */
export function ToolState({ tool }: { tool: Tool }) {
  const { state } = tool.authorization;
  return (
    <Group gap={4} wrap="nowrap" data-testid="tool-state" component="span">
      {tool.enabled ? (
        <StatusBadge status="active" label="enabled" />
      ) : (
        <StatusBadge status="draft" label="draft (disabled)" />
      )}
      {state !== "authorized" && (
        <>
          <VisuallyHidden>, </VisuallyHidden>
          <StatusBadge
            status={state}
            label={state === "reauthorization_required" ? "re-authorization required" : "never authorized"}
          />
        </>
      )}
    </Group>
  );
}
