import { inTransaction, type Pool } from "@countersign/core/store";
import { startPeriodic, type PeriodicWorker } from "@countersign/core/workers";
import { supersedeCovered } from "@countersign/core/actions";
import { claimSupersession, recordSupersedePass } from "./supersession-store.js";

/**
 * The worker that closes covered actions "usually within about 15 seconds"
 * (SPEC 3.6) in every api process: each pass claims one open supersession
 * with FOR UPDATE SKIP LOCKED (so several api processes share the work and
 * never close the same row twice), closes a batch of covered actions, and
 * completes the supersession once a pass finds nothing left after the grace
 * period (decisions in flight at the moment of the change are recorded just
 * after it).
 */
export const supersedeDefaults = { intervalMs: 5_000, batch: 500, graceSeconds: 60 } as const;

/** One pass over at most one supersession; returns the actions closed (tests call it directly). */
export async function supersedePass(
  pool: Pool,
  opts: { batch?: number; graceSeconds?: number } = {},
): Promise<number> {
  const batch = opts.batch ?? supersedeDefaults.batch;
  const grace = opts.graceSeconds ?? supersedeDefaults.graceSeconds;
  return inTransaction(pool, async (db) => {
    const s = await claimSupersession(db, grace);
    if (!s) return 0;
    const closed = await supersedeCovered(
      db,
      { organizationId: s.organization_id, policyId: s.policy_id, versionId: s.version_id, scope: s.scope },
      { batch, skipLocked: true },
    );
    await recordSupersedePass(db, s, closed);
    return closed;
  });
}

export type SupersedeWorker = PeriodicWorker;

/** Runs passes every `intervalMs` (and at once again while a pass found work) until stopped. */
export function startSupersedeWorker(
  pool: Pool,
  log: (msg: string, err?: unknown) => void,
  opts: { intervalMs?: number } = {},
): SupersedeWorker {
  return startPeriodic({
    pass: async () => (await supersedePass(pool)) > 0,
    intervalMs: opts.intervalMs ?? supersedeDefaults.intervalMs,
    failure: "closing superseded actions failed",
    log,
  });
}
