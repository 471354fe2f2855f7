import { inTransaction, type Pool } from "@countersign/core/store";
import type { Actor } from "../audit/record.js";
import { lockOrganization, type WindowRow } from "./store.js";
import { endWindows } from "./windows.js";

/** Ends every open observe window of the organization (SPEC 3.9), once: the organization is locked. */
export async function endAllWindows(
  pool: Pool,
  q: { organizationId: string; actor: Actor; userId: string | null },
): Promise<WindowRow[]> {
  return inTransaction(pool, async (db) => {
    await lockOrganization(db, q.organizationId);
    return endWindows(db, {
      organizationId: q.organizationId,
      now: new Date(),
      reason: "ended",
      actor: q.actor,
      endedBy: q.userId,
      which: { kind: "all" },
    });
  });
}
