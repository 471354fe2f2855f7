import { startPeriodic, type PeriodicWorker } from "@countersign/core/workers";
import { NOTICE_BATCH, sendApprovalNotices, type NoticeOptions } from "./notify.js";

/** How often every api process looks for new approval requests to tell approvers about. */
export const NOTICE_INTERVAL_MS = 2_000;

/**
 * Approver e-mails in the background of every api process (docs/dashboard.md "Approver e-mails"):
 * the Gateway only records the request; several processes share the sending (skip locked), and a
 * full batch runs the next pass at once.
 */
export function startApprovalNotices(opts: NoticeOptions & { intervalMs?: number }): PeriodicWorker {
  return startPeriodic({
    pass: async () => (await sendApprovalNotices(opts)) === NOTICE_BATCH,
    intervalMs: opts.intervalMs ?? NOTICE_INTERVAL_MS,
    failure: "sending approver e-mails failed",
    log: (msg, err) => opts.log.error({ err }, msg),
  });
}
