import { ServiceError } from "@countersign/protocol/errors";
import type { ToolDeclaration, ToolPatch } from "@countersign/protocol/wire";
import { inTransaction } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
import type { ApiContext } from "../context.js";
import { readServer } from "../mcp-servers/store.js";
import { bindingDigest, sameBinding, toolBinding } from "./binding.js";
import { readTool, updateTool, type ToolRow } from "./store.js";
import { requireSchema, upstreamTool } from "./upstream-tool.js";

/** What an enabled tool means (SPEC 4.4): changing any of these on an enabled tool needs an admin signed in. */
const meaning = ["upstream_name", "action", "input_schema", "amount_mapping"] as const;

/**
 * Changes a tool (SPEC 2.3, 4.4, PATCH .../tools/<id>). A new upstream tool
 * without a schema is read from the server first (a discovery); a new
 * upstream tool given its schema carries no declaration until a discovery.
 * Enabling a draft, or changing what an enabled tool means, needs an admin
 * signed in (`requireAdmin`, the caller's check, made on the locked row);
 * enabling authorizes the binding, unless one authorized before differs
 * (409 BINDING_CHANGED).
 */
export async function changeTool(
  ctx: ApiContext,
  q: {
    organizationId: string;
    toolId: string;
    body: ToolPatch;
    actor: Actor;
    userId: string | null;
    requireAdmin: (what: string) => void;
  },
): Promise<ToolRow> {
  const b = q.body;
  if (b.input_schema !== undefined) requireSchema(b.input_schema);
  const before = await readTool(ctx.pool, q.organizationId, q.toolId);
  let schema: unknown = b.input_schema;
  const newUpstream = b.upstream_name !== undefined && b.upstream_name !== before.upstream_name;
  let declaration: ToolDeclaration | null | undefined = newUpstream ? null : undefined;
  if (schema === undefined && newUpstream) {
    const server = await readServer(ctx.pool, q.organizationId, before.mcp_server_id);
    if (server.kind === "mcp") {
      const found = await upstreamTool(ctx, q.organizationId, server, b.upstream_name!);
      schema = found.input_schema;
      declaration = found.declaration;
    }
  }
  return inTransaction(ctx.pool, async (db) => {
    // The server's row before the tool's, the order discovery and tool creation lock them in
    // (a tool never moves to another server), so concurrent changes wait instead of deadlocking.
    const server = await readServer(db, q.organizationId, before.mcp_server_id, true);
    const t = await readTool(db, q.organizationId, q.toolId, true);
    const next = {
      exposed_name: b.exposed_name ?? t.exposed_name,
      upstream_name: b.upstream_name ?? t.upstream_name,
      action: b.action ?? t.action,
      description: b.description !== undefined ? b.description : t.description,
      input_schema: schema !== undefined ? schema : t.input_schema,
      amount_mapping: b.amount_mapping !== undefined ? b.amount_mapping : t.amount_mapping,
      declaration: declaration !== undefined ? declaration : t.declaration,
      enabled: b.enabled ?? t.enabled,
    };
    const changesMeaning = meaning.some((k) => JSON.stringify(next[k]) !== JSON.stringify(t[k]));
    const enabling = next.enabled && !t.enabled;
    if (enabling) q.requireAdmin("enabling a tool");
    if (t.enabled && changesMeaning) q.requireAdmin("changing what an enabled tool means");
    const binding = toolBinding(server, next);
    let authorized = t.authorized_binding;
    if (enabling) {
      // Enabling a draft authorizes what it is bound to; a tool authorized before and bound to something else since is re-authorized explicitly.
      if (authorized && !sameBinding(authorized, binding)) {
        throw new ServiceError(
          "BINDING_CHANGED",
          "the tool is bound to something else than was authorized; review and authorize the new binding first (POST .../authorize)",
          { binding_digest: bindingDigest(binding) },
        );
      }
      authorized = binding;
    }
    await updateTool(db, t.id, next, binding, authorized, enabling && !t.authorized_binding, q.userId);
    const target = { type: "tool", id: t.id };
    const changed = Object.keys(b).filter((k) => b[k as keyof typeof b] !== undefined);
    await audit(db, {
      organizationId: q.organizationId,
      action: "tool.updated",
      actor: q.actor,
      target,
      details: { fields: changed, binding_changed: !sameBinding(t.binding, binding) },
    });
    if (enabling)
      await audit(db, { organizationId: q.organizationId, action: "tool.enabled", actor: q.actor, target });
    if (!next.enabled && t.enabled)
      await audit(db, { organizationId: q.organizationId, action: "tool.disabled", actor: q.actor, target });
    return readTool(db, q.organizationId, t.id);
  });
}
