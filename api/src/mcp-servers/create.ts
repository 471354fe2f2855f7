import type { mcpServerCreateSchema } from "@countersign/protocol/wire";
import type { z } from "zod";
import { encryptMcpCredential } from "@countersign/core/mcp-servers";
import type { Plan } from "@countersign/core/plans";
import { inTransaction } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
import type { ApiContext } from "../context.js";
import { mcpOptionsOf } from "../mcp/options.js";
import { checkQuota } from "../orgs/quota.js";
import {
  insertServer,
  lockAndCountServers,
  readServer,
  setFirstCredential,
  type ServerRow,
} from "./store.js";
import { credentialKey, requireAllowedUrl } from "./upstream.js";

/**
 * Creates an MCP server or a decision-only integration (SPEC 2.3): the URL
 * follows the address rules of 6.4 (checked before anything is written), the
 * authorization header is stored encrypted; counts against the plan.
 */
export async function createServer(
  ctx: ApiContext,
  q: { organization: { id: string; plan: Plan }; body: z.output<typeof mcpServerCreateSchema>; actor: Actor },
): Promise<ServerRow> {
  const o = q.organization;
  const b = q.body;
  const mcp = mcpOptionsOf(ctx);
  if (b.kind === "mcp") await requireAllowedUrl(b.url, mcp);
  const key = b.kind === "mcp" && b.authorization !== undefined ? credentialKey(mcp) : undefined;
  return inTransaction(ctx.pool, async (db) => {
    checkQuota(o.plan, "mcpServers", await lockAndCountServers(db, o.id));
    const id = await insertServer(db, o.id, {
      name: b.name,
      kind: b.kind,
      url: b.kind === "mcp" ? b.url : null,
      status: b.status,
    });
    if (key && b.kind === "mcp" && b.authorization !== undefined)
      await setFirstCredential(db, id, encryptMcpCredential(key, id, b.authorization));
    await audit(db, {
      organizationId: o.id,
      action: "mcp_server.created",
      actor: q.actor,
      target: { type: "mcp_server", id },
      details: {
        name: b.name,
        kind: b.kind,
        credential_set: b.kind === "mcp" && b.authorization !== undefined,
      },
    });
    return readServer(db, o.id, id);
  });
}
