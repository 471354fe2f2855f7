import { ServiceError } from "@countersign/protocol/errors";
import type { McpServerPatch } from "@countersign/protocol/wire";
import { encryptMcpCredential } from "@countersign/core/mcp-servers";
import { inTransaction } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
import type { ApiContext } from "../context.js";
import { mcpOptionsOf } from "../mcp/options.js";
import { checkDeclaredIdentity } from "../mcp/service-aware.js";
import { sameBinding, toolBinding } from "../tools/binding.js";
import { checkServerIdentityDocument, registerServerIdentity } from "./server-identity.js";
import { lockServerTools, readServer, setToolBinding, updateServer, type ServerRow } from "./store.js";
import { credentialKey, declarationAfterPatch, requireAllowedUrl } from "./upstream.js";

/**
 * Changes an MCP server (SPEC 2.3, PATCH .../mcp-servers/<id>). The server is
 * asked what it declares before the row is locked (the exchange may take
 * seconds); the answer counts only if the server did not change meanwhile
 * (409 CONFLICT). A change to what enabled tools are bound to (URL,
 * credential, server identity) needs an admin signed in (`requireAdmin`, the
 * caller's check) and leaves those tools needing re-authorization.
 */
export async function changeServer(
  ctx: ApiContext,
  q: {
    organizationId: string;
    serverId: string;
    body: McpServerPatch;
    actor: Actor;
    requireAdmin: (what: string) => void;
  },
): Promise<ServerRow> {
  const o = { id: q.organizationId };
  const b = q.body;
  const mcp = mcpOptionsOf(ctx);
  if (b.url !== undefined) await requireAllowedUrl(b.url, mcp);
  const key = typeof b.authorization === "string" ? credentialKey(mcp) : undefined;
  const before = await readServer(ctx.pool, o.id, q.serverId);
  if (before.kind === "mcp" && b.server_identity)
    checkServerIdentityDocument(o.id, before.id, b.server_identity);
  const probe = await declarationAfterPatch(ctx, o.id, before, b);
  return inTransaction(ctx.pool, async (db) => {
    const s = await readServer(db, o.id, q.serverId, true);
    if (
      s.kind === "decision_only" &&
      (b.url !== undefined || b.authorization !== undefined || b.server_identity !== undefined)
    ) {
      throw new ServiceError(
        "CALLER_EXECUTED",
        "a decision-only integration has no URL, credential or server identity; only name or status can change",
      );
    }
    const next = { ...s };
    if (b.url !== undefined) next.url = b.url;
    if (b.authorization !== undefined) {
      next.credential_version = s.credential_version + 1;
      next.credential_encrypted =
        b.authorization === null ? null : encryptMcpCredential(key!, s.id, b.authorization);
    }
    if (b.server_identity !== undefined)
      next.server_kid =
        b.server_identity === null ? null : await registerServerIdentity(db, o.id, s.id, b.server_identity);
    if (probe && next.server_kid !== null) {
      if (
        probe.seen.url !== s.url ||
        probe.seen.credential_version !== s.credential_version ||
        probe.seen.server_kid !== s.server_kid
      )
        throw new ServiceError("CONFLICT", "the MCP server was changed meanwhile; try again", {
          reason: "CHANGED_MEANWHILE",
        });
      await checkDeclaredIdentity(db, probe.declared, next.server_kid);
    }
    // Which tools this changes the binding of; enabled ones need an admin signed in.
    const tools = await lockServerTools(db, s.id);
    const rebound = tools
      .map((t) => ({ t, binding: toolBinding(next, t) }))
      .filter(({ t, binding }) => !sameBinding(t.binding, binding));
    if (rebound.some(({ t }) => t.enabled)) q.requireAdmin("changing what an enabled tool is bound to");
    await updateServer(db, { ...next, name: b.name ?? s.name, status: b.status ?? s.status });
    for (const { t, binding } of rebound) await setToolBinding(db, t.id, binding);
    const fields = Object.keys(b).filter((k) => b[k as keyof typeof b] !== undefined);
    await audit(db, {
      organizationId: o.id,
      action: "mcp_server.updated",
      actor: q.actor,
      target: { type: "mcp_server", id: s.id },
      details: { fields, rebound_tool_ids: rebound.map(({ t }) => t.id) },
    });
    return readServer(db, o.id, s.id);
  });
}
