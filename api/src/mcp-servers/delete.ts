import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction, type Pool } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
import { deleteServer as deleteServerRow, hasRecordedActions, readServer } from "./store.js";

/** Deletes an MCP server with its tools, unless they have recorded actions (409 IN_USE: disable it instead). */
export async function deleteServer(
  pool: Pool,
  q: { organizationId: string; serverId: string; actor: Actor },
): Promise<void> {
  await inTransaction(pool, async (db) => {
    const s = await readServer(db, q.organizationId, q.serverId, true);
    if (await hasRecordedActions(db, s.id))
      throw new ServiceError("IN_USE", "tools of this MCP server have recorded actions; disable it instead");
    await deleteServerRow(db, s.id);
    await audit(db, {
      organizationId: q.organizationId,
      action: "mcp_server.deleted",
      actor: q.actor,
      target: { type: "mcp_server", id: s.id },
      details: { name: s.name },
    });
  });
}
