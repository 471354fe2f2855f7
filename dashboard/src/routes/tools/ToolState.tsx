import type { Tool } from "@countersign/protocol/wire";

/** Enabled or draft, and whether the Gateway accepts what it is bound to. */
export function ToolState({ tool }: { tool: Tool }) {
  return (
    <span data-testid="tool-state">
      {tool.enabled ? "enabled" : "draft (disabled)"}
      {tool.authorization.state === "reauthorization_required" && (
        <strong className="bad">, re-authorization required</strong>
      )}
      {tool.authorization.state === "unauthorized" && <span className="muted">, never authorized</span>}
    </span>
  );
}
