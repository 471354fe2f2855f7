import { ServiceError } from "@countersign/protocol/errors";
import type { observeStartSchema } from "@countersign/protocol/wire";
import type { z } from "zod";
import { inTransaction, type Pool } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
import { readAgent } from "../agents/store.js";
import { looksLikeSecret } from "./secret-like.js";
import {
  hasOpenWindow,
  insertWindow,
  isEmergencyStopped,
  lockObserveSettings,
  readWindow,
  type WindowRow,
} from "./store.js";
import { closeExpiredWindows } from "./windows.js";

/**
 * Starts an observe window (SPEC 3.9) after the owner's settings, the
 * confirmation, the reason and the policy's emergency stop are checked, in
 * one transaction holding the organization's settings: one open window per
 * agent, never extended. A refusal changes nothing.
 */
export async function startWindow(
  pool: Pool,
  q: {
    organizationId: string;
    agentId: string;
    body: z.output<typeof observeStartSchema>;
    actor: Actor;
    userId: string | null;
    now: Date;
  },
): Promise<WindowRow> {
  const b = q.body;
  return inTransaction(pool, async (db) => {
    const s = await lockObserveSettings(db, q.organizationId);
    const agent = await readAgent(db, q.organizationId, q.agentId, true);
    if (s.observe_max_hours === 0)
      throw new ServiceError(
        "OBSERVE_DISABLED",
        "observe windows are off for this organization (observe_max_hours is 0); the owner turns them on",
      );
    if (b.live && !s.observe_live_opt_in)
      throw new ServiceError(
        "OBSERVE_LIVE_NOT_ALLOWED",
        "the owner has not opted in to observe windows for live keys",
      );
    if (b.hours > s.observe_max_hours) {
      throw new ServiceError(
        "OBSERVE_WINDOW_TOO_LONG",
        `a window lasts at most ${s.observe_max_hours} hours here`,
        { issues: [{ path: "hours", code: "too_big", message: `at most ${s.observe_max_hours}` }] },
      );
    }
    if (b.confirmation !== agent.name)
      throw new ServiceError("CONFIRMATION_MISMATCH", "type the agent's name exactly to confirm");
    if (b.reason !== undefined && looksLikeSecret(b.reason))
      throw new ServiceError(
        "REASON_REJECTED",
        "the reason looks like a secret; it would be shown to every member, so it is not stored",
      );
    if (agent.policy_id && (await isEmergencyStopped(db, agent.policy_id)))
      throw new ServiceError(
        "EMERGENCY_ACTIVE",
        "the agent's policy is emergency-stopped; no window can start",
      );
    await closeExpiredWindows(db, q.organizationId, q.now);
    if (await hasOpenWindow(db, agent.id))
      throw new ServiceError(
        "OBSERVE_ACTIVE",
        "this agent already has an open observe window; windows are never extended",
      );
    const id = await insertWindow(db, {
      organizationId: q.organizationId,
      agentId: agent.id,
      policyId: agent.policy_id,
      startedBy: q.userId,
      startedAt: q.now,
      hours: b.hours,
      live: b.live,
      reason: b.reason ?? null,
    });
    await audit(db, {
      organizationId: q.organizationId,
      action: "observe_window.started",
      actor: q.actor,
      target: { type: "observe_window", id },
      details: { agent_id: agent.id, hours: b.hours, live: b.live, reason_given: b.reason !== undefined },
    });
    return readWindow(db, q.organizationId, id);
  });
}
