import { digestOf } from "@countersign/protocol/canonical";
import type { ToolDeclaration } from "@countersign/protocol/wire";
import { inTransaction, type Pool } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
import { readServer } from "../mcp-servers/store.js";
import { sameBinding, toolBinding } from "./binding.js";
import { lockServerToolDeclarations, setToolDeclaration } from "./store.js";

const digestOrNull = (d: ToolDeclaration | null) => (d == null ? null : digestOf(d));

/**
 * A discovery records what the server declares now (title, icons,
 * outputSchema, annotations, execution) on the tools made from its tools,
 * with the binding that follows. A declaration that changed changes the pin,
 * so an authorized tool is `reauthorization_required` and the Gateway refuses
 * it (TOOL_REAUTHORIZATION_REQUIRED) until an owner or admin reviews and
 * authorizes it: a tool that became destructive, or whose output changed, never
 * passes silently as the binding someone authorized. Recording it changes no
 * meaning anyone chose (it only tells the truth about the server), so any
 * writer's discovery does it. Audited as `tool.updated` (`fields:
 * ["declaration"]`). Answers the ids of the tools whose declaration changed.
 *
 * The one exception is a tool's FIRST declaration: a tool made and authorized
 * before declarations were kept (or whose server declared nothing until now)
 * was authorized for a pin that never covered one, so recording it is no
 * change to what anyone reviewed. Its standing authorization carries over
 * (`adopted: true` in the audit) instead of stopping every such tool at the
 * first discovery after an upgrade; every later change needs an admin.
 */
export async function recordDeclarations(
  pool: Pool,
  actor: Actor,
  orgId: string,
  serverId: string,
  found: { name: string; declaration: ToolDeclaration | null }[],
): Promise<string[]> {
  return inTransaction(pool, async (db) => {
    const server = await readServer(db, orgId, serverId, true);
    const declared = new Map(found.map((t) => [t.name, t.declaration]));
    const changed: string[] = [];
    for (const t of await lockServerToolDeclarations(db, serverId)) {
      // A tool the server no longer lists keeps what it had: its calls will say the rest.
      if (!declared.has(t.upstream_name)) continue;
      const declaration = declared.get(t.upstream_name)!;
      if (digestOrNull(t.declaration) === digestOrNull(declaration)) continue;
      const binding = toolBinding(server, { ...t, declaration });
      const adopted =
        t.declaration == null && t.authorized_binding != null && sameBinding(t.binding, t.authorized_binding);
      await setToolDeclaration(db, t.id, declaration, binding, adopted);
      await audit(db, {
        organizationId: orgId,
        action: "tool.updated",
        actor,
        target: { type: "tool", id: t.id },
        details: {
          fields: ["declaration"],
          binding_changed: !sameBinding(t.binding, binding),
          ...(adopted ? { adopted: true } : {}),
        },
      });
      changed.push(t.id);
    }
    return changed;
  });
}
