import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction, type Pool } from "@countersign/core/store";
import type { Actor } from "../audit/record.js";
import { readAgent } from "../agents/store.js";
import type { WindowRow } from "./store.js";
import { endWindows } from "./windows.js";

/** Ends the agent's open observe window (SPEC 3.9); 409 NO_OPEN_WINDOW when it has none. */
export async function endWindow(
  pool: Pool,
  q: { organizationId: string; agentId: string; actor: Actor; userId: string | null },
): Promise<WindowRow> {
  const ended = await inTransaction(pool, async (db) => {
    const agent = await readAgent(db, q.organizationId, q.agentId, true);
    return endWindows(db, {
      organizationId: q.organizationId,
      now: new Date(),
      reason: "ended",
      actor: q.actor,
      endedBy: q.userId,
      which: { kind: "agent", agentId: agent.id },
    });
  });
  if (!ended[0]) throw new ServiceError("NO_OPEN_WINDOW", "this agent has no open observe window");
  return ended[0];
}
