import type { Plan } from "@countersign/core/plans";
import type { Pool } from "@countersign/core/store";
import { startPeriodic, type PeriodicWorker } from "@countersign/core/workers";
import { verifyNewReceipts, VERIFY_BATCH } from "../receipts/issuance-verifier.js";
import { applyRetention } from "../retention/retention.js";

/** How often new receipts are verified. */
export const VERIFY_INTERVAL_MS = 5_000;
/** How often retention runs: a shorter period chosen by an owner applies within this (SPEC 8.7 "within minutes"). */
export const RETENTION_INTERVAL_MS = 60_000;

export type EvidenceWorker = PeriodicWorker;

/**
 * Background evidence work in every api process (DESIGN: background work in
 * api processes): verifies newly issued receipts and applies data retention.
 * Both claim rows with SKIP LOCKED, so any number of processes share them.
 */
export function startEvidenceWorker(opts: {
  pool: Pool;
  defaultPlan: Plan;
  log: (msg: string, err?: unknown) => void;
  now?: () => Date;
  verifyIntervalMs?: number;
  retentionIntervalMs?: number;
}): EvidenceWorker {
  const now = opts.now ?? (() => new Date());
  const verifyEvery = opts.verifyIntervalMs ?? VERIFY_INTERVAL_MS;
  const retentionEvery = opts.retentionIntervalMs ?? RETENTION_INTERVAL_MS;
  let lastRetention = 0;
  return startPeriodic({
    // Retention rides on the verifier's ticks; each job's failure is logged alone, so one
    // failing never starves the other.
    pass: async () => {
      let full = false;
      try {
        full = (await verifyNewReceipts(opts.pool, now())) === VERIFY_BATCH;
      } catch (err) {
        opts.log("verifying new receipts failed; retrying on the next pass", err);
      }
      if (Date.now() - lastRetention >= retentionEvery) {
        lastRetention = Date.now();
        try {
          await applyRetention(opts.pool, { now: now(), defaultPlan: opts.defaultPlan });
        } catch (err) {
          opts.log("data retention failed; retrying on the next pass", err);
        }
      }
      return full;
    },
    intervalMs: verifyEvery,
    firstDelayMs: Math.min(verifyEvery, 1000),
    failure: "evidence work failed",
    log: opts.log,
  });
}
