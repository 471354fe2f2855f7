import type { toolCreateSchema, ToolDeclaration } from "@countersign/protocol/wire";
import type { z } from "zod";
import type { Plan } from "@countersign/core/plans";
import { inTransaction } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
import type { ApiContext } from "../context.js";
import { readServer } from "../mcp-servers/store.js";
import { checkQuota } from "../orgs/quota.js";
import { bindingDigest, toolBinding } from "./binding.js";
import { insertTool, lockAndCountTools, readTool, type ToolRow } from "./store.js";
import { requireSchema, serverOfBody, upstreamTool } from "./upstream-tool.js";

/**
 * Creates a tool (SPEC 2.3, 4.4). Without a given input schema an MCP
 * server's tool is discovered first (SPEC 8.1: the schema and the rest of the
 * declaration come from the server), outside the transaction. Counts against
 * the plan; a tool created enabled (the caller checked an admin is signed
 * in) has its binding authorized at once.
 */
export async function createTool(
  ctx: ApiContext,
  q: {
    organization: { id: string; plan: Plan };
    body: z.output<typeof toolCreateSchema>;
    actor: Actor;
    userId: string | null;
  },
): Promise<ToolRow> {
  const o = q.organization;
  const b = q.body;
  const server = await serverOfBody(ctx.pool, o.id, b.mcp_server_id);
  const upstreamName = b.upstream_name ?? b.exposed_name;
  let schema: unknown = b.input_schema;
  let description = b.description ?? null;
  let declaration: ToolDeclaration | null = null;
  if (schema !== undefined) requireSchema(schema);
  else if (server.kind === "mcp") {
    const found = await upstreamTool(ctx, o.id, server, upstreamName);
    schema = found.input_schema;
    description ??= found.description;
    declaration = found.declaration;
  } else schema = { type: "object" };
  return inTransaction(ctx.pool, async (db) => {
    const count = await lockAndCountTools(db, o.id);
    const current = await readServer(db, o.id, server.id, true);
    checkQuota(o.plan, "tools", count);
    const binding = toolBinding(current, {
      upstream_name: upstreamName,
      input_schema: schema,
      amount_mapping: b.amount_mapping ?? null,
      declaration,
    });
    const id = await insertTool(
      db,
      o.id,
      server.id,
      {
        exposed_name: b.exposed_name,
        upstream_name: upstreamName,
        action: b.action,
        description,
        input_schema: schema,
        amount_mapping: b.amount_mapping ?? null,
        declaration,
        enabled: !!b.enabled,
      },
      binding,
      q.userId,
    );
    await audit(db, {
      organizationId: o.id,
      action: "tool.created",
      actor: q.actor,
      target: { type: "tool", id },
      details: {
        exposed_name: b.exposed_name,
        action: b.action,
        mcp_server_id: server.id,
        enabled: !!b.enabled,
      },
    });
    if (b.enabled)
      await audit(db, {
        organizationId: o.id,
        action: "tool.authorized",
        actor: q.actor,
        target: { type: "tool", id },
        details: { binding_digest: bindingDigest(binding) },
      });
    return readTool(db, o.id, id);
  });
}
